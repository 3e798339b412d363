"""The warning codes. Each transform reports with one of these; docs/warnings.md explains them."""

from __future__ import annotations

from typing import Final

#: code -> (short title, what the user should do)
CODES: Final[dict[str, tuple[str, str]]] = {
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
        "fallback.",
    ),
    "DP004": (
        "loss reduced with sum",
        "DDP averages gradients across processes, so a summed loss updates WORLD_SIZE times less "
        "than under DataParallel. dp2ddp multiplies a loss by WORLD_SIZE where it is "
        "backpropagated when it is summed on every path; here it is not sure (a mean mixed in, "
        "another binding, --keep-summed-loss). Multiply the loss by WORLD_SIZE or use "
        "reduction='mean'.",
    ),
    "DP005": (
        "data sliced by hand without a DataLoader",
        "Every process would train on the same samples. Use a DataLoader so a "
        "DistributedSampler can shard the data, or slice by RANK/WORLD_SIZE.",
    ),
    "DP006": (
        "random tensors drawn inside the training loop",
        "Each process draws from its own generator (also inside a project function the loop "
        "calls, e.g. a mixup or CutMix helper: the warning names it and its draw): seeded "
        "alike (one fixed seed), every rank draws the same values; seeded apart, different "
        "ones. Noise drawn for the batch (`z = torch.randn(batch_size, nz)`, "
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
        "loader, arguments passed with **, batch_size=None or a sampler passed by position. "
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
        "(as RandomSampler draws a new order on each pass). Check that one pass is one "
        "epoch, or call loader.sampler.set_epoch(epoch) at the top of your epoch loop.",
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
        'iteration" (static_graph=True does not help). dp2ddp rewrites the usual shape: the '
        "penalty's forward runs through `model.module` and ddp_average_gradients(model) "
        "follows the penalty's backward. This warning means it did not, for the reason given: "
        "the differentiated output is not a call of a model dp2ddp wrapped in the same block, "
        "no backward of the penalty or no optimizer step follows in that block, or the "
        "inserted average (a collective) might not be reached by every rank. Ways out that "
        "keep the ranks in sync (checked under torchrun with gloo): (1) one backward per "
        "forward: add the penalty to the loss of the same backward, `(d_loss + gp).backward()`, "
        "where the algorithm allows it; (2) compute the penalty through `model.module` (no DDP "
        "hooks) and, after its backward and before the optimizer step, all-reduce every "
        "`.grad` divided by WORLD_SIZE on every rank (what dp2ddp inserts); (3) run the "
        "penalty's forward and backward under `with model.no_sync():` and then all-reduce "
        "every `.grad` divided by WORLD_SIZE before the optimizer step.",
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
        "where a forward leaves parameters without a gradient): D then sees G after its step.",
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
    "DP030": (
        "running figure printed from this rank's shard",
        "A sum or count accumulated over the batches of a sharded loop is printed while the "
        "loop runs: rank 0 prints its own share, not the figure DataParallel printed. Printed "
        "means any output path: print or logging, a file's or a CSV writer's write, a "
        "function or a method of the program's own that prints or writes a file (a logger "
        "class's `io.cprint(outstr)`, a `log_string()` helper, in any of its modules). The "
        "same for a figure printed or returned after the loop that dp2ddp could not sum over "
        "the ranks: an averaging object or a list fed with the batches' losses or errors "
        "(`losses.update(loss.item(), n)` ... `return losses.avg`), or a running sum the "
        "function returns, which its caller then prints or writes to a results file. The "
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
        "dp2ddp shards `DataLoader(...)` calls, not calls of such classes, so every rank "
        "trains on the whole set. Pass "
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
    "DP041": (
        "some parameters may get no gradient: find_unused_parameters=True",
        "DataParallel does not mind a parameter that gets no gradient in a step; DDP waits "
        "for every parameter's gradient and fails at the next step (\"Expected to have "
        "finished reduction in the prior iteration\"). The model's forward() (or a module "
        "it builds) uses the layer named here only on some paths (a branch on a flag or on "
        "the input, an early return), only with gradients off (`torch.no_grad()`, "
        "`torch.set_grad_enabled(flag)` with a flag not proved True), only at an index "
        "computed at run time (`self.blocks[n - i - 1]`, `self.heads[task]`) or in a loop "
        "over it that may leave at a `break`, or never, or drops an output of a submodule "
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
        "EQUIVALENT (naming this function). Where the whole batch matters, gather the "
        "embeddings and labels from every rank before the loss "
        "(torch.distributed.nn.functional.all_gather passes the gradients back); otherwise "
        "accept per-rank mining (an identity sampler's P x K groups stay whole in each "
        "rank's part when the per-rank batch holds them).",
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
    "DP050": (
        "a fixed batch fetched once from a sharded loader",
        "`fixed_x, _ = next(iter(loader))` before training (a batch kept for sample image "
        "grids or debugging) was the global batch in the original; from the sharded loader "
        "it is this rank's share, so a grid saved from it holds 1/WORLD_SIZE of the images. "
        "dp2ddp fetches it whole with ddp_whole_batch(loader, batch_size) where the loader's "
        "global batch size can be named at the fetch; so it reads a loop or a function that "
        "only gathers samples from the loader (`get_nsamples(loader, n)`, `for x, _ in "
        "loader: ...; break`) from ddp_whole_loader(loader, batch_size) in rank 0's order. "
        "Here the size cannot be named (the loader is built in another function from a "
        "local size). Fetch it from a loader over the same dataset without the "
        "DistributedSampler, or call ddp_whole_batch(loader, B) / ddp_whole_loader(loader, "
        "B) yourself.",
    ),
    "DP051": (
        "a sharded batch cut into chunks of a global size",
        "The training loop cuts each batch into chunks (gradient accumulation, micro-batches: "
        "`for i in range(len(x) // fbs): out = model(x[i * fbs:(i + 1) * fbs])`) by a "
        "size that is not taken from the batch. Under DataParallel the batch was the global "
        "one and each chunk was scattered over the devices; migrated, each rank's batch is "
        "batch_size // WORLD_SIZE while the chunk size keeps its global value: a chunk holds "
        "WORLD_SIZE times DataParallel's per-device chunk, and where the chunk size is the "
        "batch size, range() runs no chunk at all (no training, silently) or the program's "
        "own assert fails. dp2ddp reads one configured size as this rank's part, "
        "ddp_per_rank_batch(fbs), wherever it cuts or counts this rank's batch (a count "
        "made from the global sizes, `BATCH // fbs`, keeps them); this warning is left "
        "where the chunk's size is computed from several configured sizes and which of them "
        "is the batch's is not known, and where the loader's own collate_fn cuts its batch "
        "into the parts the loop trains on (`for batch in batches`: the size is decided "
        "there, not rewritten). Scale the chunk size as the batch was (fbs // "
        "WORLD_SIZE, DataParallel's per-device chunk), or take it from the batch "
        "(`x.size(0) // splits`, a number of parts).",
    ),
    "DP052": (
        "an evaluation figure of a sharded loader decides when training stops",
        "A loop over this loader computes a figure (a loss sum, a list of losses, a mean) "
        "that reaches a condition leaving the training loop: through assignments, the ifs "
        "it decides, a function's return, an argument, an object's attribute "
        "(`early_stopping(val_loss)`; `if early_stopping.early_stop: break`). Another loop "
        "over the same loader trains on it, so dp2ddp shards it: each rank computes the "
        "figure from its own batches, the ranks may decide apart, and one leaves the "
        "training loop while the others wait in the next gradient all-reduce forever. "
        "Evaluate on a loader of its own (dp2ddp keeps an evaluation loader whole or sums "
        "its figures over the ranks), or sum the figure with torch.distributed.all_reduce "
        "before the decision.",
    ),
    "DP053": (
        "per-rank value names something the ranks share, read where not every rank arrives",
        "A value each process reads on its own (the clock, a random draw, a uuid, the process "
        "id, the file system's state) names a directory or file every rank uses. dp2ddp makes "
        "such a read rank 0's value (`ddp_rank0_value`): the n-th read of each rank gets rank "
        "0's n-th value. Here the read sits under a condition that may differ between ranks, "
        "so the n-th reads may not be the same read and a rank may take another read's value, "
        "or wait for one rank 0 never makes. The warning names the read, the use and the "
        "flow between them. Compute the name once where every rank passes (before the "
        "condition), or name it without a per-rank read (a --run-name option).",
    ),
    "DP054": (
        "file written or removed on rank 0 is used by every rank with no barrier between",
        "The write goes to rank 0 only (two ranks writing one file corrupt it), and every rank "
        "reads the file afterwards: a rank that gets there first reads a file rank 0 has not "
        "finished (FileNotFoundError, a truncated pickle) or the previous run's. Likewise a "
        "directory rank 0 removes (`shutil.rmtree` after an exists-check) that every rank "
        "then makes or writes into: a rank that gets there first writes into what rank 0 is "
        "about to remove. dp2ddp puts "
        "`ddp_barrier()` between the write and the first read where every rank arrives "
        "(analysis/uniformity.py); here it could not: the write or the read sits under a "
        "condition that may differ between ranks, or in a function called where not every "
        "rank arrives. The warning names the write and the read. Move the read (or a "
        "`torch.distributed.barrier()`) to a place every rank reaches after the write.",
    ),
    "DP055": (
        "stdin read on every rank",
        "Every process of a torchrun launch shares the terminal, and each line goes to one of "
        "them: with the input piped in, one rank reads it and the others see end of file; at "
        "a terminal they wait forever. A single read (`input()`, `sys.stdin.readline()`) is "
        "rewritten to `ddp_stdin(...)`: rank 0 reads, every rank gets its answer. This read "
        "(stdin iterated, or handed to a reader as a file) is not: read it on rank 0 into a "
        "value (`text = ddp_stdin(sys.stdin.read)`) and use that value.",
    ),
    "DP056": (
        "import by a run-time name may reach DataParallel modules the program leaves",
        "The entry's program has no DataParallel of its own, so `dp2ddp migrate ENTRY` "
        "changes nothing, but it imports through a helper of its own "
        "(`import_class(name)`, whose parameter flows into `__import__` or "
        "`importlib.import_module`) called with a name known only at run time, and modules "
        "of the project beside it wrap with DataParallel: if that call reaches one of them, "
        "every rank of a torchrun launch trains a whole copy (yysijie/st-gcn picks its "
        "processor so). A helper called with a literal "
        "(`import_class('processor.recognition.REC_Processor')`) is followed like an import. "
        "Pass the helper a literal, import the module statically, name it on the command "
        "line, or migrate the folder (`dp2ddp migrate DIR`). `--check` fails on the entry "
        "until then.",
    ),
    "DP057": (
        "a branch asks the DDP wrapper for an attribute only the inner module has",
        "The original wrapped the model under a flag (`if args.num_gpu > 1:`) and later "
        "chose by a condition between `model.x` and `model.module.x`; the migration wraps "
        "on every process, so `model.x` (a method or attribute of the model's own class, "
        "not of nn.Module) now raises AttributeError on the DistributedDataParallel object. "
        "Where both branches make the same call, dp2ddp keeps the `.module` branch itself; "
        "here they differ, so use `model.module.x` in that branch by hand.",
    ),
    "DP058": (
        "running figure of batch means not summed over the ranks",
        "A figure of a sharded loader (one that also trains, so it cannot stay whole) adds "
        "a value per batch that is not proved a sum over samples: `loss.item()` of a "
        "mean-reduced criterion, a `.mean()`, a fraction from an accuracy helper. Summed over "
        "the ranks it would count each rank's share of a batch as a batch of its own (a raw "
        "sum of batch means doubles under two ranks), so dp2ddp does not sum it: each rank "
        "keeps its own figure. Weight it by the batch size (`loss.item() * x.size(0)`) or use "
        "reduction='sum', then dp2ddp sums it over the ranks.",
    ),
    "DP059": (
        "the loss uses a statistic over the batch",
        "A mean over the batch dimension (`p.mean(0)`, `torch.mean(p, 0)`, the batch's mean "
        "prediction of an entropy term) goes through a non-linear function (a log, an "
        "entropy helper) before the loss. DataParallel gathered the model's outputs and "
        "computed it over the whole batch; under DDP each rank computes it over its own "
        "share, so the loss is a different function of the samples and `dp2ddp verify` "
        "reports NOT EQUIVALENT. A plain mean of per-sample losses is not affected (DDP "
        "averages the gradients of equal shares). Where the whole batch's statistic "
        "matters, gather the outputs from every rank first "
        "(torch.distributed.nn.functional.all_gather passes the gradients back), or accept "
        "the per-rank statistic.",
    ),
    "DP060": (
        "a model output indexed at a position of the global batch",
        "DataParallel gathered the outputs of the whole batch, so a position counted over "
        "the global batch (`out[j * batch_size]` for head j of a (heads x batch) output, "
        "`range(batch_size)` over its rows) was in range; under DDP each rank holds the "
        "outputs of its part only (batch_size // WORLD_SIZE rows per head), and the position "
        "runs past them (IndexError on every rank) or picks another sample. dp2ddp reads a "
        "sharded loader's batch size per rank in such a position "
        "(`ddp_per_rank_batch(batch_size)`); this warning is left where the position is "
        "counted over something else (the dataset's length). Count it over this rank's "
        "output (`out.size(0)`) or gather the outputs first.",
    ),
    "DP061": (
        "a batch's size compared with a size that may be the global batch size",
        "Under DataParallel the loader gave the whole batch, so `if x.size(0) < batch_size: "
        "continue` skipped only the last, short batch. Migrated, each rank's loader gives "
        "batch_size // WORLD_SIZE samples: compared with the global size, every batch is "
        "short (no training, exit 0, nothing said), and an equality never holds. dp2ddp "
        "reads the other side per rank, ddp_per_rank_batch(B), where it is spelled as the "
        "loop's loader's batch_size; this warning is left where it is not (another name, a "
        "number, a computed size). Compare with ddp_per_rank_batch(B), or with the size of "
        "the batch the loader was built to give.",
    ),
    "DP066": (
        "file written on rank 0 may be the one every rank reads, and the paths do not match",
        "The write goes to rank 0 only, and every rank later reads a file whose path may be "
        "the same one, but the two paths are not spelled so dp2ddp can tell: a loop over "
        'another iterable (`for s in splits: np.save(f"{s}.npy", ...)`, read back in a loop '
        "over another list), the same helper called with other arguments (`cache_file(a)`, "
        "`cache_file(b)`), the same attribute or item of another object (`self.out`, "
        "`cfg.out`). Where the paths are one file, a rank that gets to the read first reads a "
        "file rank 0 has not finished (FileNotFoundError, a truncated pickle) or the previous "
        "run's; dp2ddp places a `ddp_barrier()` only between paths it matches. The warning "
        "names the write and the read. Spell both paths alike (one variable, one loop over "
        "the same list), or put `ddp_barrier()` after the write where every rank arrives.",
    ),
    "DP065": (
        "dataset that downloads its files built on every rank at once",
        "A call passes `download=True` (a torchvision, torchaudio or torchtext dataset, or a "
        "project's dataset factory): on first use it fetches an archive into its folder and "
        "unpacks it. Under DataParallel one process did; under torchrun every process does, "
        "at once, into the same files: a torn archive, a failed checksum, a tree read while "
        "another process unpacks it. dp2ddp builds such a dataset with `ddp_rank0_first`: "
        "rank 0 first, then the other ranks, who find the files. That waits at barriers, "
        "so every rank must reach the call after the process group exists; here that is "
        "not proved (the warning says why). Download the data before the launch, or build "
        "the dataset where every rank arrives.",
    ),
    "DP067": (
        "per-sample random draws of a Dataset alike on every rank",
        "A Dataset's `__getitem__` (or a method it calls) draws from a process-wide generator "
        "(`np.random`, `random`, torch's global one): an augmentation, a random crop, a "
        "rotation; also where it calls a transform object (`self.transform(sample)`) and its "
        "module defines a class whose `__call__` draws so (a library's transforms are not "
        "seen). Under DataParallel one process drew the global batch's samples one after the "
        "other from one stream, each its own draw. Under torchrun, where every rank seeds that "
        "stream alike (a fixed seed, or torch's default one), rank r's k-th sample of a sharded"
        " loader gets every other rank's k-th draw: each draw twice in a batch of two ranks. "
        "Loader workers seeded from the shared seed (or by a `worker_init_fn` of a constant "
        "seed) do the same. Given only where that is proved: numpy's and Python's `random` "
        "streams start from OS entropy in each process, so a program that never seeds them (no "
        "seed call at module level or in a function it calls) and starts no loader workers "
        "draws differently on each rank: no warning. dp2ddp leaves it: seed per rank on purpose"
        " (e.g. `np.random.seed(seed + RANK)` after the model and the dataset are built), or "
        "draw from a generator seeded per rank; or add `# noqa: DP067` where alike is meant.",
    ),
    "DP068": (
        "parameters trained outside DistributedDataParallel, their sync not proved reached",
        "The optimizer trains a module no DDP wrapper holds (a loss with trainable "
        "parameters such as proxies or class centres, a head left unwrapped). DataParallel "
        "ran it once on the gathered batch, so its gradient was the whole batch's; under "
        "torchrun each rank's backward gives its own share's gradient and the ranks' copies "
        "drift apart. dp2ddp adds `ddp_sync_module(X)` after the statement that hands "
        "`X.parameters()` to the optimizer (rank 0's values, every gradient averaged over "
        "the ranks as backward accumulates it), a collective every rank must reach; here "
        "that is not proved (the warning says why). Call `ddp_sync_module(X)` where every "
        "rank arrives, wrap X in DistributedDataParallel as well, or make it part of the "
        "wrapped model.",
    ),
    "DP069": (
        "an optimizer updates a model that is not the wrapped one",
        "The optimizer's parameters come from a model built here that no DataParallel call "
        "wraps (a knowledge-distillation student beside a wrapped teacher, a second network "
        "of a pair). DataParallel's one process trained it on every whole batch; migrated, "
        "the training loader is sharded for the wrapped model, so each rank trains its own "
        "copy on its share with no gradient averaging: the copies differ from the first step "
        '(`dp2ddp verify`: "ranks in sync NO") and the saved one is rank 0\'s. Wrap that '
        "model in DistributedDataParallel too (wrapping it in nn.DataParallel before "
        "migrating does the same), call `ddp_sync_module(X)` where every rank arrives, "
        "or keep its loader whole if it must train alone. Where the model is built by a "
        "call on each of its bindings in the module and handed to the optimizer where "
        "every rank is, dp2ddp adds `ddp_sync_module(X)` itself (see DP068) and gives no "
        "DP069.",
    ),
    "DP070": (
        "the wrapped model is pickled whole",
        "A save pickles the wrapper object itself (`torch.save(model, path)`, "
        "`torch.save(nn.Sequential(model), path)`, a dict or list holding it, "
        "`net.module if use_cuda else net` on the branch that keeps the wrapper), not its "
        "`state_dict()` or `.module`. The original's file held a DataParallel, which loads "
        "in any process; migrated, it holds the DistributedDataParallel object, and "
        '`torch.load` fails outside a process group ("Default process group has not been '
        'initialized"). Nothing fails while training. Save `model.module` (the inner '
        "module) or its state_dict instead, and load it the same way. Where the saved object is "
        "the wrapped name itself or an element of a plain dict, list or tuple saved with it, "
        "and the wrap is proved to be what the name holds there (bound only to the wrap in "
        "the module, or the one binding reaching the save), dp2ddp saves its `.module` (the "
        "inner model) and gives no DP070. The same for a wrapped model passed to a function "
        "of the program that pickles that parameter whole (`save_checkpoint(epoch, model, "
        "optimizer)` putting it in a dict it `torch.save`s, in this module or another): the "
        "call passes `model.module` where all the function does with it is pickle it or read "
        "its `state_dict()`; where it also uses it otherwise (a forward, `.module`, another "
        "call), DP070 is given at the call, naming the function's save.",
    ),
    "DP071": (
        "loss is a ratio of two sums over the batch",
        "A loss dividing one sum over the whole batch by another (Dice: `2 * (p * t).sum() "
        "/ (p.sum() + t.sum())`, IoU/Jaccard: `inter / (p.sum() + t.sum() - inter)`) is "
        "not a mean of per-sample terms. DataParallel computed it once, on the gathered "
        "outputs: the whole batch's ratio. Under DDP each rank takes the ratio of its own "
        "part's sums and DDP averages the ranks' gradients, which is not the gradient of "
        "the whole batch's ratio: the training differs from the original's, silently "
        "(`dp2ddp verify` reports NOT EQUIVALENT). A ratio per sample averaged over the "
        "batch (`.sum(dim=(1, 2))` ratios, then `.mean()`) is unchanged under DDP and is "
        "not warned about. To keep DataParallel's loss, all-reduce both sums over the "
        "ranks (torch.distributed.nn.functional.all_reduce passes the gradients back) "
        "before dividing, and multiply by WORLD_SIZE as DDP averages the ranks' "
        "gradients; or accept per-rank ratios (switching to a per-sample ratio changes "
        "the loss itself). Marked in the migrated file: `--check` fails until it is "
        "resolved or silenced with `# noqa: DP071`.",
    ),
    "DP076": (
        "the program may reach project code dp2ddp does not migrate",
        "The program's modules change sys.path, and dp2ddp cannot show which files its "
        "imports then reach. It follows a folder put on sys.path when it can compute it "
        "(built from `__file__`, `os.path`/pathlib calls, literals: HRNet's "
        "`_init_paths.py` inserting `osp.join(this_dir, '..', 'lib')`) and widens the "
        "project root to cover it; here either an import reaches, through such an edit, a "
        "file outside the project root (an absolute folder of one machine, or one above "
        "the home folder), or a sys.path change it does not follow (a folder known at run "
        "time only, `sys.path = ...`, an edit in a function) comes with an import that "
        "resolves to no file of the program while a project module of that name lies "
        "nearby. If the program imports that code, it is not migrated: its file writes, "
        "prints and DataLoaders run on every rank as written. Make the edit computable "
        "(a path built from `__file__`), or migrate that module yourself (its writes "
        "under `if ddp_is_main():`, its loaders sharded), then silence the warning with "
        "`# noqa: DP076` on the line it names.",
    ),
    "DP085": (
        "a tensor shaped by the global batch size in a loop whose loader was not followed",
        "Under DataParallel the loader gave the whole batch, so a tensor built or reshaped "
        "with the loader's batch_size as a dimension (`np.zeros([batch_size, n_mels, 1])` "
        "concatenated to the batch, `torch.ones(batch_size, 1)` as targets, `x.view("
        "batch_size, -1)`) had one row per sample. Migrated, each rank's loader gives "
        "batch_size // WORLD_SIZE samples: the shapes differ (a crash on every rank at the "
        "first step) or broadcast to the global size silently. In a loop over a loader it "
        "shards, dp2ddp reads that dimension per rank, ddp_per_rank_batch(B); this warning "
        "is left where the loop iterates something not followed to a loader, so which "
        "loader it is, sharded or whole, is not known. Size the tensor from the batch "
        "itself (`x.size(0)`), or by ddp_per_rank_batch(B) where the loop's loader is "
        "sharded.",
    ),
    "DP088": (
        "a count of samples from this rank's batches sets the learning rate",
        "A count grown by each training batch's size (`global_step += x.size(0)`) drives the "
        "learning rate (`scheduler.step(global_step)`, an `lr` computed from it). Migrated, "
        "each rank's batch is its share: the count grows by 1/WORLD_SIZE of the original's "
        "per step, so warm-up or decay takes WORLD_SIZE times the steps, silently (`dp2ddp "
        'verify`: "learning rate changed"). Count the global batch (`x.size(0) * '
        "WORLD_SIZE`, or all-reduce it), or count steps. Marked in the migrated file: "
        "`--check` fails until it is resolved or silenced with `# noqa: DP088`.",
    ),
    "DP089": (
        "embedding rows renormalised in place by each rank's lookups (max_norm)",
        "An embedding given `max_norm` (`nn.Embedding(n, d, max_norm=1.0)`, `F.embedding`) "
        "renormalises in place, in forward, the rows each lookup reads. DataParallel looked "
        "up the whole batch's rows; migrated, each rank renormalises its own share's rows "
        "only, so the ranks' tables drift apart, in the wrapped model or synced beside it "
        '(`dp2ddp verify`: "ranks in sync NO"). Renormalise outside forward on every '
        "rank alike (after the step, the whole table), or drop `max_norm`.",
    ),
    "DP082": (
        "batch rows read by position in a batch a sampler of the program composed",
        "A loader with a sampler or batch sampler of the program's own is sharded as "
        "DataParallel scattered its batches: every rank draws the same batch and keeps its "
        "contiguous part (DdpBatchShard, DdpSamplerShard). DataParallel gathered the outputs, "
        "so the code after the model call ran on the whole batch; under DDP it runs on one "
        "rank's part. Where the sampler composes its batches by position (a two-stream "
        "sampler: labeled indices first, then unlabeled ones), a slice of the batch or of "
        "the model's output (`out[:labeled_bs]` for a supervised loss, `out[labeled_bs:]` "
        "for a consistency loss) selects other samples on each rank: a rank whose part "
        "holds no labeled sample gives the supervised loss to unlabeled ones, silently. "
        "dp2ddp cannot show what the positions mean. Make each rank's part keep the "
        "batch's composition (a sampler that yields, per rank, its share of each stream: "
        "`DistributedSampler`s on each index set, or a batch sampler that takes the rank's "
        "part of each stream and concatenates them), or select by what the sample is (a "
        "mask on the label, `target != NO_LABEL`) instead of where it is; then silence the "
        "warning with `# noqa: DP082` (it is said again at each `--check`).",
    ),
}


#: Codes saying a DataParallel use was left as it is: a file unchanged with one of these still
#: needs work, so `migrate --check` fails on it (the pre-commit hook catches it).
UNCONVERTED_DATAPARALLEL: Final = frozenset({"DP002", "DP016", "DP038", "DP056"})


def title(code: str) -> str:
    return CODES[code][0]


def explanation(code: str) -> str:
    return CODES[code][1]
