"""The texts of codes DP001 to DP049 (dp2ddp.codes merges them into CODES).

One dict literal per file, so that a repeated key stays visible (tests/test_docs.py)."""

from __future__ import annotations

from typing import Final

#: code -> (short title, what the user should do)
FIRST: Final[dict[str, tuple[str, str]]] = {
    "DP001": (
        "DataParallel dim is not 0",
        "DDP has no scatter dimension: each process gets whole samples from its sampler. "
        "The message says what was done in this module: training batches that do not come "
        "from a DataLoader split along this dim (ddp_shard_batch, at the lines named); a "
        "DataLoader's batches split along dim 0 (samples) by its DistributedSampler, which "
        "is DataParallel's split only if the model's input takes its batch from the "
        "samples (a transpose before the call); or no split at all. Where the batch is not "
        "split as DataParallel split it, make the model batch-first or split it yourself "
        "with ddp_shard_batch(batch, dim=D).",
    ),
    "DP002": (
        "custom DataParallel subclass, criterion wrapper or scatter/gather",
        "Not rewritten: port the custom parallel logic to DDP by hand.",
    ),
    "DP003": (
        "script already has a DistributedDataParallel path",
        "Left unchanged: launch the existing DDP path with torchrun and delete the DataParallel "
        "fallback. Under torchrun that path must take each process's rank from the "
        "environment torchrun sets (LOCAL_RANK, RANK, WORLD_SIZE): a `--local_rank` argument "
        "is torch.distributed.launch's, and torchrun does not pass it (with one, every process "
        "would keep its default and take the DataParallel path). Where the path runs under a "
        "test decided at run time, the warning says what dp2ddp checked of it: where its "
        "init_process_group takes the rank (the environment torchrun sets, a literal rank, an "
        "option torchrun does not pass), options it passes that no parser of the program "
        "declares, a DistributedSampler; and what keeps it from running as DDP. Fix that, or "
        "remove the DDP path and migrate the DataParallel one with dp2ddp.",
    ),
    "DP004": (
        "loss reduced with sum",
        "DDP averages gradients across processes, so a summed loss updates WORLD_SIZE times less "
        "than under DataParallel. dp2ddp multiplies a loss by WORLD_SIZE where it is "
        "backpropagated when it is summed on every path and every batch it sums is this rank's "
        "part, and leaves it unscaled where every rank sums the same whole batch (a fixed "
        "batch: the ranks' equal gradients are DataParallel's). Where a sum over the batch is "
        "one term beside means (a VAE's KL sum beside a mean reconstruction), it scales that "
        "term alone where it is written, `(torch.sum(x) * WORLD_SIZE)`, when that changes no "
        "other use (its function called only there, in a module no other imports). Here it is "
        "not sure (a mean mixed in and the sum's function called elsewhere or in another "
        "module, another binding, --keep-summed-loss, a batch not proved split, a whole batch "
        "each rank draws apart, split and whole batches in one loss). Multiply the loss (or "
        "the summed term) by `torch.distributed.get_world_size()` where its batch is this "
        "rank's part (the helpers' WORLD_SIZE is not imported into your module), or use "
        "reduction='mean'. Where the sum is divided by a count before it is backpropagated "
        "(`loss / norm`, the batch's tokens), the loss is a mean over that count, not a "
        "sum: do not multiply it; DP136 (at the division) says what differs.",
    ),
    "DP005": (
        "data sliced by hand without a DataLoader",
        "Every process would train on the same samples. Use a DataLoader so a "
        "DistributedSampler can shard the data, or slice by RANK/WORLD_SIZE.",
    ),
    "DP006": (
        "random tensors drawn inside the training loop",
        "Each process draws from its own generator (also inside a project function the loop "
        "calls, e.g. a mixup or CutMix helper: the warning names it and its draw; also a "
        "generator object the program builds, `np.random.RandomState(seed)`, "
        "`np.random.default_rng()`, `random.Random()`, of which each process holds its own): "
        "seeded alike (one fixed seed, or a state every rank restores from the same "
        "checkpoint), every rank draws the same values, the first of the sequence "
        "DataParallel's one process drew; seeded apart, different ones. Noise "
        "drawn for the batch (`z = torch.randn(batch_size, nz)`, "
        "`torch.rand_like(x)`, `torch.randn(x.size(0), n)`, `zdist.sample((batch_size,))` "
        "of a torch.distributions object, also inside a function of the "
        "module every call of which gives it a loop's batch) is drawn as DataParallel drew "
        "it where dp2ddp can show it is the global batch's, in a loop over a loader it "
        "shards (ddp_draw_share: the whole batch's draw on rank 0's stream, each rank "
        "keeping its rows); here it could not. Draw the global batch's "
        "values with `ddp_draw_share(lambda: ...)` yourself, seed per rank on purpose, or "
        "draw on rank 0 and broadcast if the values must agree.",
    ),
    "DP007": (
        "module state mutated in forward() or backward()",
        "DataParallel discarded such updates on its replicas; under DDP every process keeps "
        "its own copy and they drift apart. Register a buffer and reduce it, or move the "
        "update out of forward(). Also a custom torch.autograd.Function's forward() or "
        "backward() changing in place a tensor it was handed (a memory bank "
        "`index_copy_`'d in backward, as NCE codes do): applied in the model or on the "
        "loss path, each rank changes its own copy by its own part of the batch only; "
        "gather the batch's rows (all_gather of features and indices) before the update.",
    ),
    "DP008": (
        "BatchNorm statistics are per process",
        "Each process normalises over its own shard. Pass --sync-batchnorm to convert with "
        "SyncBatchNorm (CUDA only).",
    ),
    "DP009": (
        "DataLoader has its own sampler",
        "Not sharded: every rank loads the whole epoch. dp2ddp shards a loader's own sampler "
        "or batch sampler with DdpBatchShard (every rank draws the same batches, each keeps "
        "its contiguous part, as DataParallel's scatter); here it could not: an evaluation "
        "loader, a loader of a program's module that no loop there iterates (its batches "
        "summed nowhere over the ranks), arguments passed with **, batch_size=None or a "
        "sampler passed by position. "
        "Wrap the sampler by hand: batch_sampler=DdpBatchShard(sampler, per_rank_batch).",
    ),
    "DP010": (
        "CUDA_VISIBLE_DEVICES set in the script",
        "torchrun assigns one GPU per process by LOCAL_RANK; set visible devices in the "
        "launch environment instead.",
    ),
    "DP011": (
        "no epoch loop found for sampler.set_epoch",
        "Without set_epoch every epoch would reuse the first epoch's shuffle order, so this "
        "loader got DdpDistributedSampler(advance_epoch=True), which advances its epoch on "
        "each pass over the loader "
        "(as RandomSampler draws a new order on each pass); a loader built anew in a loop "
        "(each epoch, in the loop or by a function or method it calls, or as a flat "
        'iteration loop starts one) also gets rebuilt="file:line": '
        "each new sampler starts at the epoch after its predecessor's last pass. A loader "
        "handed to another module's function that makes one pass per call gets set_epoch in "
        "the epoch loop around that call instead; one whose passes there are not one per call "
        "(an epoch loop inside the callee) is said with where its loop is. A loader "
        "another module's function returns is not said where the migration placed set_epoch "
        "in the epoch loop around every loop of the program over it (its sampler still "
        "advances by itself on a pass none numbers). Check that "
        "one pass is one epoch, or call loader.sampler.set_epoch(epoch) at the top of your "
        "epoch loop.",
    ),
    "DP012": (
        "DataParallel wrap kept under a condition",
        "DDP must wrap on every process; the condition was not recognised as a GPU-count "
        "guard, so check that it holds on every rank.",
    ),
    "DP013": (
        "batch size not recognised",
        "The batch size is not a plain expression dp2ddp can split; check that the "
        "per-process batch is the global batch divided by WORLD_SIZE.",
    ),
    "DP014": (
        "name used by the inserted DDP setup",
        "The script already binds a name the DDP setup defines (LOCAL_RANK, RANK, WORLD_SIZE, "
        "DEVICE, DEVICE_IDS or ddp_*); rename yours.",
    ),
    "DP015": (
        "evaluation metrics not reduced",
        "Sharded, this evaluation loader would leave some figure with this rank's share only: "
        "no counters were found that can be summed across ranks, or not every term of a "
        "figure can be (it would divide by this rank's own count, an averaging object or a "
        "list would hold this rank's batches only, the evaluation function can also be given "
        "loaders this module does not shard, or the loop was not found). So the loader is "
        "left unsharded: every rank evaluates the whole set and prints the original figures. "
        "To shard it, reduce your metrics with torch.distributed.all_reduce.",
    ),
    "DP016": (
        "DataParallel used where it cannot be rewritten",
        "Only `DataParallel(module, ...)` calls and isinstance checks are rewritten; this "
        "use was left as is.",
    ),
    "DP017": (
        "SyncBatchNorm conversion only takes effect on CUDA",
        "On CPU (gloo) the BatchNorm layers stay per-process.",
    ),
    "DP018": (
        "device index pinned by hand",
        "A fixed GPU index would put every process on the same GPU; it was replaced by "
        "this process's DEVICE where recognised, check the rest.",
    ),
    "DP019": (
        "checkpoint loaded without map_location",
        "Under DDP every process would load onto the GPU it was saved from; pass "
        "map_location=DEVICE.",
    ),
    "DP020": (
        "iterable dataset or unknown loader",
        "The loader could not be sharded automatically; shard inside the dataset by RANK "
        "and WORLD_SIZE.",
    ),
    "DP021": (
        "experiment tracker not made rank-0 only",
        "Every process would write its own TensorBoard events or wandb run. Create the "
        "writer or run only when ddp_is_main() (other ranks: a DdpNullWriter, whose calls do "
        "nothing, or wandb's mode='disabled').",
    ),
    "DP022": (
        "wrapped model inside another wrapped model",
        "DataParallel wrappers nest; DDP wrappers must not: each would register the shared "
        "parameters with its own reducer. Wrap only the outermost model that is trained "
        "(drop the inner wrap, or wrap the parts separately and not their parent).",
    ),
    "DP023": (
        "double backward through a DDP model",
        "A gradient penalty (WGAN-GP, R1) computes torch.autograd.grad(..., create_graph=True) "
        "through the model; backpropagated on its own after the model's forward, it fails "
        'under DDP at the next forward: "Expected to have finished reduction in the prior '
        'iteration". Where the wrap has static_graph=True (DP096 sets it for a model called '
        "several times before one backward, as a critic on real, fake and interpolated "
        "samples is), it does not fail: the ranks' weights drift apart from the first step, "
        "silently (AttGAN's critic, stop 39: `gradient_penalty(self.D, real, fake)` computing "
        "`f(x)`). dp2ddp rewrites the usual shape: the "
        "penalty's forward runs through `model.module` and ddp_average_gradients(model) "
        "follows the penalty's backward. This warning means it did not, for the reason given: "
        "the differentiated output is not a call of a model dp2ddp wrapped in the same block, "
        "no backward of the penalty or no optimizer step follows in that block, or the "
        "inserted average (a collective) might not be reached by every rank. Ways out that "
        "keep the ranks in sync (checked under torchrun with gloo): (1) one backward per "
        "forward: add the penalty to the loss of the same backward, `(d_loss + gp).backward()`, "
        "where the algorithm allows it, with no static_graph=True on the wrap; (2) compute "
        "the penalty through `model.module` (no DDP "
        "hooks) and, after its backward and before the optimizer step, all-reduce every "
        "`.grad` divided by WORLD_SIZE on every rank (what dp2ddp inserts); (3) run the "
        "penalty's forward and backward under `with model.no_sync():` and then all-reduce "
        "every `.grad` divided by WORLD_SIZE before the optimizer step. Not said where the "
        "gradient is taken inside a model's own forward (a MAML inner loop: a method its "
        "forward() reaches through `self.` calls, none backpropagating or calling a module "
        "handed to it): autograd.grad fires no DDP hook, and the outer loss's one backward "
        "per forward is what DDP expects (stop 61, shirleyzhu233/PyTorch-MAML).",
    ),
    "DP024": (
        "DataParallel wrap at import time of a library module",
        "A library module is imported before the entry calls ddp_setup(), so a model "
        "wrapped at its top level is built before the process group exists. Move the wrap "
        "into a function the entry calls after ddp_setup().",
    ),
    "DP025": (
        "DataParallel module that no entry script imports",
        "Migrated as a library module (wrap, devices, rank-0 output, no setup call). The "
        "script that imports it must call ddp_setup() from the generated _dp2ddp module first "
        "thing, or be migrated too: run `dp2ddp migrate` on that script.",
    ),
    "DP026": (
        "second backward through one DDP forward",
        "DDP all-reduces gradients during the first backward after a forward only; a second "
        "backward through the same forward's outputs (G and D in one module whose forward "
        "returns both losses, then loss_G.backward() ... loss_D.backward()) leaves its "
        "gradients per rank, and the weights it updates drift apart across ranks in silence. "
        "find_unused_parameters=True and static_graph=True do not help (the second backward "
        'then fails: "Trying to backward through the graph a second time"; with '
        "retain_graph=True the weights still diverge), nor do separate DDP wrappers for "
        "the parts called in the one forward. Ways out that keep the ranks in sync (measured "
        "under torchrun with gloo): (1) run the forward under `with model.no_sync():` and, "
        "after each backward, all-reduce each `.grad` of the parameters its optimizer steps "
        "and divide it by WORLD_SIZE (the original's updates exactly); (2) one forward per "
        "backward (a forward for G's losses, another for D's; find_unused_parameters=True "
        "where a forward leaves parameters without a gradient): D then sees G after its step. "
        "The same holds for two backwards through DIFFERENT forwards of one DDP model before "
        "its next forward (a GAN's dis_loss over D(real) and D(fake.detach()), then "
        "gen_loss over D(fake)): DDP prepares its reducer in each forward and all-reduces "
        "the first backward after the latest one only; backward the sum once, or run one "
        "forward per backward. Forwards and backwards are followed through the functions "
        "and methods of the loop's module (a model's process() making D's forwards, its "
        "backward() running both backwards): the warning then marks the call in the loop "
        "and names the backward inside. A D step between the two backwards, with D's "
        "gradients zeroed before its next step, would discard the part left per rank; "
        "dp2ddp does not prove that, and warns there too.",
    ),
    "DP027": (
        "training loader from a module dp2ddp could not follow",
        "A training loop of the wrapped model iterates a loader built in a project module "
        "that `dp2ddp migrate` could not reach from the entry the way Python runs it (a "
        "folder put on sys.path at run time, say), so that DataLoader was not sharded: every "
        "rank trains on the whole set. Make the module importable from the entry's folder "
        "or the project root so dp2ddp follows it, or give that DataLoader "
        "sampler=DistributedSampler(dataset) and call loader.sampler.set_epoch(epoch) at the "
        "top of each epoch.",
    ),
    "DP028": (
        "a table the pass changes at this rank's rows and reads back in later steps",
        "A loop over a loader dp2ddp shards changes rows of a table made before it at the "
        "positions the batch names (its labels, its sample indices) and reads the table "
        "again in the same pass: class centres `feature_center[y] += beta * (feat - "
        "feature_center[y])` whose rows the next step's centre loss reads "
        "(GuYuc/WS-DAN.PyTorch@8777912, stop 58). Under DataParallel one process changed "
        "the rows with every sample of each batch; sharded, each rank changes them with its "
        "own samples only, so from the second step on every rank trains on a table of its "
        "own, different from the original's, and what the program saves of it is rank 0's. "
        "DDP keeps the weights in step and nothing fails. dp2ddp does not make it whole (a "
        "gather each step, before the read, is a collective the program must place): gather "
        "the batch's indices and the new rows from every rank (`dist.all_gather`) and write "
        "all of them on every rank before the table is read again, or accept a table per "
        "rank.",
    ),
    "DP029": (
        "a loader of a factory called several times, no loop over it followed",
        "A DataLoader is built in a function or method the program calls at several places "
        "(one builder for the training, validation and test loaders: adntjr4/"
        "denoising_practice@b53363d `_set_dataloader(self.train_cfg, ...)`, "
        "`(self.val_cfg, batch_size=1, shuffle=False, ...)`, stop 59) and dp2ddp followed "
        "no loop over what it returns (kept in a dict on `self`, iterated in a subclass of "
        "another module), so it could not tell the training calls from the evaluation ones "
        "and shards the loaders of every call. Where a call's loaders are evaluated, each "
        "rank goes through its own share: the validation figures are this rank's (rank 0 "
        "printed 20.63 dB for the original's 20.68), and files named by the loop's position "
        "(`0000_DN.png`) are written by every rank for different samples over each other. "
        "Build the evaluation loaders whole (no DistributedSampler, the original batch "
        "size) where the builder is called for them, or sum the figures over the ranks "
        "(`dist.all_reduce`) and name the files by the sample's index.",
    ),
    "DP030": (
        "running figure printed from this rank's shard",
        "A sum or count accumulated over the batches of a sharded loop is printed while the "
        "loop runs: rank 0 prints its own share, not the figure DataParallel printed. Printed "
        "means any output path: print or logging, a file's or a CSV writer's write, a "
        "function or a method of the program's own that prints or writes a file (a logger "
        "class's `io.cprint(outstr)`, a `log_string()` helper, in any of its modules). The "
        "same for a figure printed or returned after the loop that dp2ddp could not sum over "
        "the ranks: an averaging object or a list fed with the batches' losses or errors "
        "(`losses.update(loss.item(), n)` ... `return losses.avg`), or held by the "
        "instance (`self.train_metrics.update('loss', loss.item())`, printed by any method "
        "of its class or returned: `return self.train_metrics.result()`), a running sum the "
        "function returns, which its caller then prints or writes to a results file, or a "
        "figure folded from the batches by another arithmetic recurrence (a moving average, "
        "`ema = ema * 0.9 + float(loss) * 0.1`) or by concatenation (`labels_all = "
        "torch.cat((labels_all, labels))`, read by a metric such as an AUROC after the "
        "loop), or sums kept item by item in a list or "
        "dict of numbers (`total_losses[i] += loss.item()`). The "
        "figures after an evaluation loop are summed over the ranks where dp2ddp can (see "
        "DP015); sum running figures with torch.distributed.all_reduce yourself, or read "
        "them as rank 0's sample.",
    ),
    "DP031": (
        "checkpoint loaded without a barrier every rank reaches",
        "Rank 0 saves a checkpoint where not every rank arrives (under a condition that may "
        "differ between ranks), so no ddp_barrier() could follow the save, or in another "
        "module of the program (a load after a call of its saving function gets a "
        "ddp_barrier() before it), and this load is not reached by every rank: a rank may "
        "read the file while rank 0 is still writing it. Make the condition global (reduce "
        "the value it compares) or call ddp_barrier() at a place every rank passes before "
        "the load.",
    ),
    "DP032": (
        "training loop left on a rank-local value",
        "The `break` runs on some ranks only (early stopping on this rank's own loss, a "
        "per-rank metric), so the other ranks train on and wait forever in DDP's gradient "
        "all-reduce. Decide on a value that is the same on every rank: sum it with "
        "torch.distributed.all_reduce first (figures of a sharded evaluation that dp2ddp "
        "reduces already are).",
    ),
    "DP034": (
        "DataParallel module the program does not reach",
        "`dp2ddp migrate ENTRY` migrates the entry and the project modules it imports. This "
        "module of the project wraps with DataParallel but no import of the entry's program "
        "reaches it (nor the command line names it), so it is left as it is; said when the "
        "entry's program uses DataParallel or imports modules by names known only at run "
        "time. Often the program imports it by a name computed "
        "at run time (`importlib.import_module('tasks.' + args.task)`, a dotted name read "
        "from a config file or YAML, a registry) that dp2ddp cannot follow; the warning sits "
        "at that call when there is one. If the program uses the module, import it "
        "statically (`import tasks.pose`), or name a static package prefix "
        "(`'tasks.' + name`: that package's DataParallel and DataLoader modules join the "
        "program), or migrate the folder (`dp2ddp migrate DIR`). If it belongs to another "
        "entry script, migrate that one too.",
    ),
    "DP035": (
        "training loader from a DataLoader subclass not sharded",
        "This loader is built from a project class that subclasses DataLoader, with "
        "`shuffle=`, or a `sampler=` or `batch_sampler=` of its own: a training loader. "
        "dp2ddp shards `DataLoader(...)` calls, and a class whose `__init__` hands "
        "`super().__init__` a sampler of its own, not calls of other such classes, so every "
        "rank trains on the whole set. Pass "
        "sampler=DistributedSampler(dataset, shuffle=...) instead of shuffle= (the subclass "
        "must forward it to DataLoader), divide the batch size by WORLD_SIZE to keep "
        "DataParallel's global batch, and call loader.sampler.set_epoch(epoch) at the top of "
        "each epoch; with a batch_sampler of your own, let each rank take its part of every "
        "batch it yields (`batch[RANK::WORLD_SIZE]`), the ranks drawing the same batches.",
    ),
    "DP036": (
        "dataset drawn with a generator each process seeds itself",
        "What a dataset holds or in what order is decided by a generator the program creates "
        "without a seed (np.random.default_rng(), random.Random(), np.random.RandomState()): "
        "under torchrun each process seeds it on its own, so each rank builds another "
        "dataset and DistributedSampler's shards overlap and miss samples. dp2ddp makes "
        "draws from the global generators agree (ddp_same_random), not this one. Give it a "
        "seed every rank shares (a constant, or rank 0's value through "
        "torch.distributed.broadcast_object_list).",
    ),
    "DP037": (
        "training batches not split over the ranks",
        "DataParallel cut every batch that reached the model along its dim; under DDP only "
        "a sampler shards data, and this training loop's batches come from something else "
        "(an iterator object, a generator, slices of a tensor, a get_batch() helper). dp2ddp "
        "splits such batches with ddp_shard_batch(batch, dim=...) where it can show the split "
        "keeps inputs and targets aligned; here it cannot (the reason is named), so every "
        "rank trains on every batch. Take this rank's part of each batch yourself: "
        "ddp_shard_batch((x, y), dim=D) right where the batch is built, or split the "
        "batchified source's batch columns before a helper that reshapes them.",
    ),
    "DP038": (
        "notebook uses DataParallel",
        "Not rewritten: a notebook's kernel is one process, and DDP runs one process per GPU "
        "under torchrun, which launches scripts. Export the notebook to a script (`jupyter "
        "nbconvert --to script NOTEBOOK.ipynb`), migrate the script with `dp2ddp migrate` and "
        "launch it with torchrun; keep the notebook for single-GPU work.",
    ),
    "DP039": (
        "weights re-initialised after the DDP wrap",
        "DistributedDataParallel copies rank 0's parameters and buffers to every rank once, "
        "when it wraps the model; an in-place re-initialisation after that (model.apply("
        "weights_init), reset_parameters(), nn.init.*_ on its weights) draws new weights on "
        "each rank from that rank's own generator, and the ranks then train different "
        "models for the whole run (DDP only averages gradients). dp2ddp inserts "
        "ddp_broadcast_module(model) after such a call where every rank reaches it; here it "
        "could not (the reason is named). Re-initialise before wrapping, or broadcast the "
        "weights from rank 0 yourself after it (ddp_broadcast_module, or "
        "torch.distributed.broadcast of each parameter and buffer) on every rank.",
    ),
    "DP040": (
        "loss compares samples across the batch",
        "DataParallel gathered the model's outputs from every GPU and computed a loss written "
        "outside the model on the whole batch; under DDP each rank computes it on its own "
        "part. For a loss over single samples that changes nothing (DDP averages the "
        "gradients), but a loss over pairs of samples (batch-hard triplet mining, "
        "contrastive or InfoNCE losses, a pairwise distance matrix) now mines among fewer "
        "samples: its value and gradients differ, and `dp2ddp verify` reports NOT "
        "EQUIVALENT (naming this function, or this warning for a comparison written in the "
        "training code itself). Where the whole batch matters, gather the "
        "embeddings and labels from every rank before the loss "
        "(torch.distributed.nn.functional.all_gather passes the gradients back); otherwise "
        "accept per-rank mining (an identity sampler's P x K groups stay whole in each "
        "rank's part when the per-rank batch holds them).",
    ),
    "DP041": (
        "some parameters may get no gradient: find_unused_parameters=True",
        "DataParallel does not mind a parameter that gets no gradient in a step; DDP waits "
        "for every parameter's gradient and fails at the next step (\"Expected to have "
        "finished reduction in the prior iteration\"). The model's forward() (or a module "
        "it builds) uses the layer named here only on some paths (a branch on a flag or on "
        "the input, an early return), only with gradients off (`torch.no_grad()`, "
        "`torch.set_grad_enabled(flag)` with a flag not proved True), only at an index "
        "computed at run time (`self.blocks[n - i - 1]`, `self.heads[task]`) or in a loop "
        "over it that may leave at a `break`, or never, or calls the parts of a model a "
        "library's factory builds one by one, never the model whole (`self.v = "
        "timm.create_model(...)`, then `self.v.blocks`: what else it holds is not known), "
        "or drops an output of a submodule "
        "that only some of its layers feed (`x, _ = self.block(x)`; a loop that reads each block's "
        "output only as the next block's input drops the last one), or the program's call of "
        "the wrapped model leaves such an output unread (`out, stop = model(x)`, `stop` "
        "never read after it outside no_grad), or the program sets `requires_grad` to a "
        "value not proved True where it may run after the wrap (a `toggle_grad(net, on)` "
        "helper between a critic's and a generator's steps), so the DDP wrap gets "
        "find_unused_parameters=True (also when the model's class is not known statically "
        "and the program has such a module). It costs a graph traversal per step: drop it "
        "if every parameter gets a gradient in every step, or delete the layer that is "
        "never used.",
    ),
    "DP042": (
        "DataParallel wraps a submodule in place: the rest of the model is outside DDP",
        "`model.encoder = DataParallel(model.encoder)` parallelised the encoder and left the "
        "rest of `model` (a projection head, a classifier) on one device, updated once. Under "
        "DDP the wrap becomes `model.encoder = DistributedDataParallel(model.encoder)`: only the "
        "encoder's gradients are averaged, and every other parameter of `model` trains on its "
        'own rank\'s shard and drifts apart (verify: "ranks in sync NO"). Wrap the whole '
        "model once instead (`model = DistributedDataParallel(model)`; the submodule is then "
        "`model.module.encoder`), or average the other parameters' gradients after each "
        "backward by hand.",
    ),
    "DP043": (
        "mean loss over a count that depends on the data",
        "A mean with ignore_index= or class weight= (CrossEntropyLoss, NLLLoss, "
        "F.cross_entropy, F.nll_loss) divides by the batch's count of targets not ignored, "
        "or by the sum of its targets' class weights. DataParallel computed this loss once, "
        "on the gathered outputs: one mean over the whole batch. Under DDP each rank divides "
        "by its own part's count and DDP then averages the ranks equally, so when the "
        "ranks' counts differ (more ignored pixels on one rank) each sample is weighted "
        "differently from DataParallel, silently; `dp2ddp verify` reports NOT EQUIVALENT "
        "(naming this loss). To keep DataParallel's loss, take reduction='sum' and divide by "
        "the global count: `(target != ignore_index).sum()` (or the targets' weights "
        "summed) all-reduced over the ranks with torch.distributed.all_reduce, and multiply "
        "by WORLD_SIZE, as DDP averages the ranks' gradients; or accept the per-rank "
        "weighting (close to DataParallel's when the ranks' shares are alike). The same "
        "for a mean written by hand, a sum divided by a count of a mask (`loss / num_pos`, "
        "`num_pos = (target > 0).sum()`: detection and masked losses), where a part with no "
        "element divides by 0 and the all-reduced inf makes every rank's weights NaN. "
        "Also a mean over a masked selection (`diff[target > 0]`, `x.masked_select(m)`, "
        "`x[m.nonzero(as_tuple=True)]`, then `(d ** 2).mean()`): it divides by the count "
        "the mask selects; warned, not rewritten. "
        "dp2ddp divides by ddp_count_share(count) (the count summed over the ranks, over "
        "WORLD_SIZE: DataParallel's loss) where the numerator is a sum over the batch and "
        "every rank reaches the division as often; the warning names why it did not.",
    ),
    "DP044": (
        "tensor sized by a per-rank training batch meets a whole batch",
        "Under DataParallel one process loaded the global batch from every loader, so a "
        "tensor sized by a training batch (`Tensor(x.shape[0]).fill_(1)`, `torch.ones("
        "x.size(0))`) matched another loader's batch of the same batch_size. Under DDP the "
        "training loader yields each rank's share (B / WORLD_SIZE) while this other loader "
        'is left whole (B): the shapes differ (RuntimeError: "size of tensor a (16) must '
        'match the size of tensor b (8)") or broadcast silently. Size the tensor from the '
        "batch it meets (torch.ones_like(output), or its own .size(0)).",
    ),
    "DP045": (
        "device list passed by the caller keeps DataParallel's meaning",
        "The wrap's `device_ids=` is a list the caller gives (`self.gpus`, a parameter), and "
        "the code still reads it as the GPUs one process drives: its first entry as that "
        "process's device (`str(gpus[0]) in device`), its length as the number of replicas "
        "(`batch_size *= len(gpus)`). The wrap itself becomes DDP on this process's device, "
        "but a caller that passes `gpus=[0, 1]` still gets those readings: on rank 1 (cuda:1) "
        "and on the CPU the first entry no longer names the device (shenweichen/DeepCTR-Torch "
        'raises "`gpus[0]` should be the same gpu with `device`"). Under torchrun the '
        "processes are the device list: where the list only chose DataParallel's replicas, "
        "callers pass none (one process per GPU, `--nproc_per_node`) and give the batch size "
        "for all processes where the code multiplied it by the list's length; where an empty "
        "list means the CPU (a `--gpu_ids` option), pass this process's device instead "
        "(`[LOCAL_RANK]`, or `DEVICE_IDS` from the generated module).",
    ),
    "DP046": (
        "isinstance check rewritten in a module that wraps no model",
        "The module's only DataParallel uses are isinstance/issubclass checks and no module "
        "of its program wraps a model with DataParallel, so it was migrated on its own: the "
        "check now tests DistributedDataParallel, as it must where the model it is given "
        "comes from a migrated DataParallel wrap. Where it serves a program that already "
        "trains with DDP, a DDP model it used to pass over is now unwrapped "
        "(`model.module`): a state_dict it saves loses DDP's `module.` prefix, and a loader "
        "that expects the prefix no longer matches. Keep the old check there (leave the "
        "file out of the run: `--exclude`), or make the loader accept both.",
    ),
    "DP047": (
        "a batch reaching the model is not proved to be this rank's part",
        "DataParallel split every batch its model was given over the GPUs; under DDP each "
        "rank must be given its own part. dp2ddp follows the tensor back (the flow in the "
        "message: source, the lines it passed, the call) and finds no sampler, no split and "
        "no place where a split is equivalent (a loop's own batch it cannot split, state "
        "carried from call to call). Split the batch where it is built "
        "(ddp_shard_batch(batch, dim=D) gives this rank its contiguous part) or shard its "
        "source with a DistributedSampler.",
    ),
    "DP048": (
        "a parameter the loss reads outside forward, with find_unused_parameters=True",
        "The wrapped model may leave some parameters without a gradient (as DP041 says), so "
        "the wrap has find_unused_parameters=True, and the loss that is backpropagated also "
        "reads the model outside its forward: an attribute (`model.module.scale`), its "
        "`.parameters()`/`.modules()`, or a function of the program handed the model that "
        "does (`loss + count_total_time(model) * penalty`, whose body runs "
        "`model.apply(...)`). Under DataParallel that read was one more term of the loss. "
        "DDP marks ready, when forward returns, the parameters forward's outputs do not "
        "reach; one the read then gives a gradient in the backward is marked again, and "
        'DDP raises "Expected to mark a variable ready only once" at the first backward on '
        "every rank (rtqichen/ffjord's CNF end time, stop 46). Compute that term inside "
        "forward and return it, or, where every step uses the same parameters, replace "
        "find_unused_parameters=True with static_graph=True (DDP then records the first "
        "step's use, the read included). Marked in the migrated file: `--check` fails until "
        "it is resolved or silenced with `# noqa: DP048`.",
    ),
}
