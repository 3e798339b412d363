"""The texts of codes DP065 to DP099 (dp2ddp.codes merges them into CODES).

One dict literal per file, so that a repeated key stays visible (tests/test_docs.py)."""

from __future__ import annotations

from typing import Final

#: code -> (short title, what the user should do)
LATER_HIGH: Final[dict[str, tuple[str, str]]] = {
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
        "names the write and the read (none where a barrier for another write of its rank-0 "
        "group lies between, or the read is in the other arm of an `if` no loop repeats). "
        "Spell both paths alike (one variable, one loop over the same list), or put "
        "`ddp_barrier()` after the write where every rank arrives.",
    ),
    "DP067": (
        "per-sample random draws of a Dataset alike on every rank",
        "A Dataset's `__getitem__` (or a method it calls) draws from a process-wide generator "
        "(`np.random`, `random`, torch's global one): an augmentation, a random crop, a "
        "rotation; also where it calls a function of the program that draws so, itself or through "
        "the functions it calls, of its module or another (AugMix's `aug()`), and where it calls"
        " a transform object (`self.transform(sample)`) and its module defines a class whose "
        "`__call__` draws so, or the object handed to it (`transform=Jitter()`, a Compose of "
        "such) is of a class of another module of the program that draws so, or a function "
        "handed as the transform draws so, itself or through the functions it calls, of any "
        "module of the program (`transform=random_flip`) (a library's "
        "transforms are not seen). Under DataParallel one "
        "process drew the global batch's samples one after the other from one stream, each "
        "its own draw. Under torchrun, where every rank seeds that "
        "stream alike (the program seeds it with a value), rank r's k-th sample of a sharded"
        " loader gets every other rank's k-th draw: each draw twice in a batch of two ranks. "
        "Loader workers do the same where their base seed is alike (drawn from torch's "
        "generator the program seeds, or from the loader's own `generator=`). Given only where "
        "that is proved, and the warning says which: torch's, numpy's and Python's `random` "
        "streams each start from a seed of their own in each process (torch's too, on torch "
        "2.13), so a program that never seeds them (no seed call at module level or in a "
        "function it calls) draws differently on each rank, its workers too: no warning. "
        "dp2ddp leaves it: seed per rank on purpose"
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
        "of a pair, a margin head picked from a table of heads and handed to the optimizer "
        "through the program's own parameter helper). DataParallel's one process trained "
        "it on every whole batch; migrated, "
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
        "`torch.save(nn.Sequential(model), path)`, a dict or list holding it, or a name "
        "such a display or an item store fills (`state = {'net': net}` or `state['net'] = "
        "net`, then `torch.save(state, path)`: warned, not rewritten), "
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
        "/ (p.sum() + t.sum())`, IoU/Jaccard: `inter / (p.sum() + t.sum() - inter)`, a "
        "denominator bound to a name first) is not a mean of per-sample terms; nor is a "
        "per-class ratio whose sums run over the dims that hold the batch's rows "
        "(`.sum((0, 2, 3))`, or `.sum(-1)` after `x.permute(1, 0, 2, 3).contiguous()"
        ".view(C, -1)` merged them into the last dim: round 22, ooooverflow/BiSeNet@284a8f6), "
        "averaged over the classes. DataParallel computed it once, on the gathered "
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
    "DP072": (
        "a model handed to a class runs several forwards before one backward",
        "A class keeps a model it is handed (`self.model = model` in `__init__`) and a method "
        "calls it two or more times with gradients on before one backward (a source batch "
        "and a target batch, a clean and a perturbed pass), in a program that wraps a model "
        "in DataParallel elsewhere. DataParallel ran each call on its own; DDP arms its "
        "reducer at each forward, so where the model handed in is the DDP wrap the first "
        'backward fails ("Expected to mark a variable ready only once" with '
        'find_unused_parameters=True, "Expected to have finished reduction" without), '
        "unless the wrap has static_graph=True (DP096 sets it where the calls are seen "
        "beside the wrap). Which model the class gets is not followed across modules "
        "(zhunzhong07/ECN@5c5c177's Trainer: both ranks failed at step 1 with no warning "
        "before stop 44). Where it is the wrapped model, pass static_graph=True to its "
        "DistributedDataParallel (and drop find_unused_parameters); where it is not, silence "
        "it. Marked in the migrated file: `--check` fails until it is resolved or silenced "
        "with `# noqa: DP072`.",
    ),
    "DP073": (
        "a module imported by a computed name was not read",
        "An import call names its module by a computed name under a package of the project "
        "(`importlib.import_module('models.' + args.model)`, `__import__(f'nets.{arch}')`) "
        "and nothing bounds the name: no static end picks the package's modules "
        "(`'models.' + name + '_model'` does). dp2ddp reads each module the name can be into "
        "the program (what it does with a batch, a draw, a print or a file is migrated with "
        "it), but this package has more of them than it reads for one call, so only those "
        "that wrap with DataParallel or build a DataLoader were read; the others, named in "
        "the message, are not migrated: a batch-size comparison, a draw or a file write "
        "there runs on every rank as the original's did in one process. Import the module "
        "statically, give the name a static end, or migrate the folder (`dp2ddp migrate "
        "DIR`); silence it with `# noqa: DP073` where the modules left are not the ones the "
        "program runs.",
    ),
    "DP074": (
        "a generator's loader batches not followed to their use",
        "A loop over a DataLoader yields its batches from a generator of the module (`def "
        "create_iterator(self, bs): while True: for item in DataLoader(self, bs): yield "
        "item`), and dp2ddp could not follow the generator's batches to where they are "
        "used: no function of the program calls it (of this module, where the file is "
        "migrated alone), or a call hands the generator or its batch on. The loader is "
        "sharded as training data. Where its "
        "batches feed a training that is right; where they are a fixed batch for sample "
        "outputs or an evaluation, each rank gets its share only (the saved samples hold "
        "1/WORLD_SIZE of the rows). dp2ddp keeps such a loader whole itself, with no "
        "warning, where each `next()` of the generator (or `for` over it) is taken in a "
        "function of the program (another module's too) that never backpropagates, runs "
        "the model under "
        "`no_grad()` or after `.eval()` and keeps the batch to itself. Otherwise build "
        "the sample loader without the DistributedSampler yourself, or, if it trains, "
        "silence the warning with `# noqa: DP074`.",
    ),
    "DP075": (
        "optimizer step taken on a rank-local value",
        "`optimizer.step()` runs under a condition computed from this rank's own batches "
        "(`if loss.item() < skip_threshold * last_loss:`, a rule that skips unstable "
        "batches). DataParallel decided once, on the whole batch's figure; under DDP each "
        "rank decides on its own shard's, so some ranks step and others do not, and from "
        "then on the ranks hold different weights (DDP averages gradients, it never "
        "re-syncs weights), silently. Decide on a figure that is the same on every rank: "
        "sum the loss (and the batch size) over the ranks with "
        "torch.distributed.all_reduce before comparing; then silence the warning with "
        "`# noqa: DP075`.",
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
        "nearby (under the root, or in the two folders above it and their sub-folders, "
        "never the system's folder for temporary files, which holds other programs; a "
        "module an installed library answers, or a folder holding the program's own "
        "files, is not named). Or the program changes no sys.path and such an import comes with a "
        "project module of that name nearby that no installed module answers: a folder a "
        "shell script puts on PYTHONPATH (kaituoxu/X-Punctuator's path.sh); the folders of "
        "the PYTHONPATH migrate runs with, under the working folder, are followed, so run "
        "migrate with the program's PYTHONPATH. If the program imports that code, it is "
        "not migrated: its file writes, prints and DataLoaders run on every rank as "
        "written. Make the edit computable (a path built from `__file__`), or migrate that "
        "module yourself (its writes under `if ddp_is_main():`, its loaders sharded), then "
        "silence the warning with `# noqa: DP076` on the line it names.",
    ),
    "DP077": (
        "a function's batches are this rank's share at one call site and whole at another",
        "A training loop iterates a parameter of its function, and the program passes that "
        "function a DataLoader the migration shards at one call site (DistributedSampler, "
        "the per-rank batch: each batch is this rank's share already) and a loader left "
        "whole (an evaluation loader, or one every rank goes through) at another. "
        "DataParallel scattered every batch at the model call; under DDP the sharded "
        "loader's batches must not be split again (each rank would train on 1/WORLD_SIZE "
        "of its share) while the whole loader's must be (else every rank trains on the "
        "whole batch). One function cannot do both, so dp2ddp does neither and names both "
        "call sites. Shard both loaders (or neither) where they are built, or split the "
        "whole one's batches in its caller (`ddp_shard_batch`), then silence the warning "
        "with `# noqa: DP077`. Marked in the migrated file: `--check` fails until then.",
    ),
    "DP078": (
        "a save(path) of an object of unproved type runs on every rank",
        "A statement calls `.save(path)` of an object a function returned (`images = grid(...)`; "
        "`images.save(name)`) whose returns dp2ddp does not prove a known kind, or of an object "
        "a library's class built where dp2ddp does not know the library (`tio.ScalarImage(x)`). "
        "A PIL image, also through the program's own helpers, is saved by rank 0 alone. If the "
        "method writes the file, every rank writes it once migrated: the ranks race on one file. "
        "Put the call under `if ddp_is_main():` (or name one file per rank on purpose), then "
        "silence the warning with `# noqa: DP078`. Marked in the migrated file: `--check` fails "
        "until then.",
    ),
    "DP079": (
        "a file write left on every rank: its arguments may do work",
        "A statement writes a file (`cv2.imwrite(path, convert(img))`, `np.save(path, "
        "make(x))`) and would go on rank 0 alone, but an argument calls something dp2ddp "
        "does not prove free of work every rank needs (a collective, a DDP forward, a random "
        "draw): guarded, the other ranks would skip that work; so the write stays on every "
        "rank, and every rank writes the file: the ranks race on one path, and what is left "
        "is any rank's content (SR3's validation images: each rank sampled its own and both "
        "wrote the same PNGs, stop 39). Compute the value on every rank and write it on "
        "rank 0: `value = convert(img)`, then `if ddp_is_main(): cv2.imwrite(path, value)` "
        "(or name one file per rank on purpose), then silence the warning with "
        "`# noqa: DP079`. Marked in the migrated file: `--check` fails until then.",
    ),
    "DP080": (
        "a library object's write/print/log runs on every rank",
        "A statement calls `.write()`, `.print()` or `.log()` of an object built by a library "
        "dp2ddp does not know (`bar = SomeBar(...)`; `bar.write(line)`). Such a method "
        "usually prints or logs a line, as fastprogress's `master_bar.write` does; "
        "migrated, it runs on every rank, so the line is printed WORLD_SIZE times (or the "
        "log written by every rank). Put it under `if ddp_is_main():` where it prints. "
        "Marked in the migrated file: `--check` fails until it is resolved or silenced "
        "with `# noqa: DP080`.",
    ),
    "DP081": (
        "a file opened with a mode dp2ddp cannot read",
        "An `open(path, mode)` whose mode is not a string literal nor a name bound only to "
        "literals (a parameter, a computed mode, or a name that may hold a read mode and a "
        "write mode). Migrated, the open runs on every rank; if the mode writes or appends, "
        "every rank writes the one file: its lines twice, or the file truncated under rank "
        "0 (yulunzhang/RCAN@f722e5d: `open_type = 'a' if os.path.exists(p) else 'w'`, "
        "then `open(dir + '/log.txt', open_type)`, had both ranks append every log line; "
        "dp2ddp now reads such a name: modes that all write are opened on rank 0, elsewhere "
        "on a scratch file). Pass a literal mode, or open the file on rank 0 only "
        "(`if ddp_is_main():`) or one file per rank; then silence the warning with "
        "`# noqa: DP081`. Marked in the migrated file: `--check` fails until then.",
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
    "DP083": (
        "BatchNorm the removed replication patch synchronised is per process",
        "The program patched its DataParallel wrap with a sync-BN package's "
        "`patch_replication_callback(model)`, so that the package's BatchNorm layers "
        "(SynchronizedBatchNorm2d, often built through a `partial` or an alias no BatchNorm "
        "name shows: XiaLiPKU/EMANet@f09ffac's `norm_layer`) normalised over the whole "
        "batch, across the GPUs. DDP does not replicate, so the patch was removed with the "
        "wrap; the layers now normalise over each process's share, as plain BatchNorm does. "
        "Pass --sync-batchnorm to convert them to torch's SyncBatchNorm (they subclass "
        "torch's _BatchNorm; CUDA only), or accept per-process statistics.",
    ),
    "DP084": (
        "a loader handed to another module, not followed to the loops that use it",
        "A DataLoader this module builds (or gets from a loader factory) and does not "
        "iterate itself is handed to a function or class of another module of the program "
        "(`Trainer(model, opt, train_loader, dev_loader)`), and dp2ddp did not prove what "
        "the loops there do with it: no loop of that module iterates the parameter "
        "(kept for later, handed on further, iterated by hand with next()), a loop over it "
        "neither trains nor runs in evaluation context, or one loop trains on it and "
        "another evaluates it. Where the loops are found, they decide the loader's role: "
        "training loops get it sharded, evaluation loops (under `no_grad()` or after "
        "`.eval()`) get it whole, with the original's figures (DP015). Here the role was "
        "left as the loader's `shuffle` flag says (shuffled: sharded as training data; in "
        "order: whole, its batches split at the model call), which may be wrong: an "
        "evaluation set sharded prints and compares rank 0's share of its figures, a "
        "training set left whole loads every sample on every rank. The same where one "
        "DataLoader call in a loop over split names builds a loader per name "
        "(`for split in ['train', 'val', 'test']: self.loaders[split] = DataLoader(..., "
        "sampler=MySampler(...))`, ruotianluo/ImageCaptioning.pytorch@4c48a33, stop 42), "
        "or in a dict comprehension over the splits that no loop of the module iterates "
        "(`{split: DataLoader(dataset, shuffle=(split == 'train')) for split, dataset in "
        "datasets.items()}` returned to other modules, ehoogeboom/e3_diffusion_for_molecules, "
        "stop 44; where the module's own loops read each split by name, the splits only "
        "evaluated are built whole instead, DP015): "
        "all of them are sharded as the training split needs, and which split each loop "
        "asks for (`get_batch('val')` in an evaluation) was not followed: an evaluated "
        "split reports over this rank's part. Check what the other "
        "module does with it; then silence the warning with `# noqa: DP084`.",
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
    "DP086": (
        "model read in a device guard's else, before the hoisted wrap",
        "The wrap stood in a device guard (`if not args.no_cuda:`, `if use_cuda:`) whose "
        "else branch ran the program without DataParallel. Every process must wrap, on CPU "
        "too, so dp2ddp moves the wrap after the `if`; the else branch still runs first and "
        "reads the model unwrapped: a `state_dict()` taken there has no `module.` keys, and "
        "the code after the `if` meets a DistributedDataParallel model (`model."
        'load_state_dict(net_dict)`: "Missing key(s) ... module.conv1.weight" on every '
        "rank, Tencent/MedicalNet with `--no_cuda`). Running the branch after the wrap "
        "instead would change what it reads (keys the original's path never matched). "
        "Move the read after the wrap, or read `model.module`, as the path means. Marked in "
        "the migrated file: `--check` fails until it is resolved or silenced with "
        "`# noqa: DP086`.",
    ),
    "DP087": (
        "a child process (os.system, subprocess) runs on every rank",
        "A statement runs a shell command or another program (`os.system('cp main.py ' + "
        "folder)`, `subprocess.run([...])`) and drops its result. Under DataParallel one "
        "process ran it once; under torchrun every rank runs it, and dp2ddp does not read what "
        "the command does: a copy, a `mkdir`, a script that writes files is repeated by every "
        "rank at once (GDANet's backups of its source files, stop 39); a command that is "
        "`mkdir -p PATH` and nothing else is proved safe to repeat and not warned. If it "
        "writes or changes files, run it on rank 0 (`if ddp_is_main(): os.system(...)`) "
        "and, when other ranks read what it made, `ddp_barrier()` after it where every rank "
        "arrives; if every rank must run it, say so with `# noqa: DP087`.",
    ),
    "DP088": (
        "a count of samples from this rank's batches sets the learning rate",
        "A count grown by each training batch's size (`global_step += x.size(0)`) drives the "
        "learning rate (`scheduler.step(global_step)`, an `lr` computed from it). Migrated, "
        "each rank's batch is its share: the count grows by 1/WORLD_SIZE of the original's "
        "per step, so warm-up or decay takes WORLD_SIZE times the steps, silently (`dp2ddp "
        'verify`: "learning rate changed"). Where every rank provably reaches the increment '
        "once per step, dp2ddp counts the global batch itself (`ddp_global_count(size)`, "
        "summed over the ranks); this warning is where that was not proved (a loop left, "
        "or the statement reached, under a condition that may differ between ranks). Count "
        "the global batch (all-reduce it), or count steps. Marked in the migrated file: "
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
    "DP090": (
        "the learning rate decided by a figure this rank computes from its own batches",
        "A figure of the training loop (a sum of this rank's losses, a draw made for its "
        "batch) decides the learning rate (`if total > best: lr /= 2`, a write to a "
        "parameter group's `lr`, `ReduceLROnPlateau.step(figure)`). DataParallel computed it "
        "once, over the whole batch; migrated, each rank computes it from its own share, so "
        "the ranks may set different learning rates and their weights part, silently. "
        "dp2ddp does not make it rank 0's value: inside the training loop that value is also "
        "this rank's data. All-reduce the figure first (`dist.all_reduce`, averaged), or "
        "decide on a figure every rank computes alike. Marked in the migrated file: "
        "`--check` fails until it is resolved.",
    ),
    "DP091": (
        "a sample batch fetched once through an iterator object may be this rank's share",
        "A batch is taken once, before the training loop, from an object of the program's "
        "own iterator class (`fetcher_val = InputFetcher(loaders['val'])`, `inputs_val = "
        "next(fetcher_val)`) and read only under `no_grad()`: a fixed batch for debug or "
        "sample outputs. DataParallel saw the whole batch; migrated, if the loader behind "
        "the object is sharded like the training loaders (one helper builds both), the "
        "batch holds this rank's share and the outputs saved from it 1/WORLD_SIZE of the "
        "rows, silently. Where the class's `__next__` (and the methods it calls on `self`) "
        "is shown to draw only by `next()` of `iter()` of a loader its constructor is "
        "handed, and the object serves that one fetch, dp2ddp hands the constructor "
        "`ddp_unsharded_loader(loader)` and fetches in `with ddp_same_random():` (the "
        "original's whole batch, no warning); here it was not shown (a class of no program "
        "module, a `__next__` drawing from anything else, the object used again). The same "
        "is said of `fixed = next(it)` from `it = iter(loader)` before a loop that reads "
        "`fixed` (the loop may go on drawing from `it`): where the loader is sharded, the "
        "kept batch is this rank's share. Keep that "
        "loader whole (no DistributedSampler), or gather the batch "
        "(`dist.all_gather`). Marked in the migrated file: `--check` fails until it is "
        "resolved or silenced with `# noqa: DP091`.",
    ),
    "DP092": (
        "a count of samples from this rank's batches decides when to log or save",
        "A count grown by each training batch's size (`total_iters += x.size(0)`) decides "
        "when to log, show or save (`if total_iters % print_freq == 0:`, `if seen >= N:`). "
        "Migrated, each rank's batch is its share: the count grows by 1/WORLD_SIZE of the "
        "original's per step, so the logs, sample outputs and checkpoints come at 1/WORLD_SIZE "
        "of the rate (past a threshold: later, or never), silently. Where every rank "
        "provably reaches the increment once per step, dp2ddp counts the global batch "
        "itself (`ddp_global_count(size)`, summed over the ranks); this warning is where "
        "that was not proved. Count the global batch (all-reduce it), or count steps. "
        "Marked in the migrated file: `--check` fails until it is resolved or silenced "
        "with `# noqa: DP092`.",
    ),
    "DP093": (
        "a Dataset's own state advanced by sample positions",
        "A per-sample method of a Dataset (`__getitem__` and the methods it calls) changes "
        "state that outlives the sample (a global, an attribute of `self`) under a condition "
        "on the sample's index: `if index % batch_size == 0: SEED += 2` (csqiangwen/"
        "deepfillv2_pytorch@e505471: a seed advanced once per batch, read to draw one crop "
        "size for the batch). DataParallel's one process saw every index of an epoch, in "
        "the sampler's order, and advanced the state at the positions the program counts "
        "on. Migrated, a DistributedSampler gives each rank every WORLD_SIZE-th index, and "
        "each rank advances its own copy at its own indices: a rank may never meet the "
        "condition (rank 1 of 2 never sees a multiple of 4) and never advance it, and the "
        "values read from it differ from the original's. Derive what it decides from "
        "something every rank has (the epoch, the step, the index itself: "
        "`seed = index // batch_size`), or silence the warning with `# noqa: DP093`.",
    ),
    "DP094": (
        "a loader left whole: the program's DataParallel may be in a module imported by a "
        "name known only at run time",
        "The program builds this DataLoader and wraps no model itself, but it imports a "
        "module by a name dp2ddp cannot read (`importlib.import_module(cfg['module'])`), "
        "and the project holds DataParallel modules it does not otherwise reach: a trainer "
        "chosen by a name in its configuration (haoxiangsnr/Wave-U-Net-for-Speech-"
        "Enhancement@64e1aa2). Migrated as a folder, that module gets the DDP wrap while "
        "this loader keeps its batch size and no DistributedSampler: every rank trains on "
        "all the data, and the gradient average is one rank's (no data parallelism, "
        "silently). dp2ddp follows such a call where the program's configuration names the "
        "module at the keys the call reads (a JSON string in the code, or a JSON or YAML "
        "file under the project root when the program imports a reader of them: "
        "`initialize(config['trainer'])` with `import_module(cfg['module'])` reads "
        "`trainer.module`); this warning is where it could not. Import the module by a "
        "name dp2ddp can read, put the name in such a file, or shard the loader by hand "
        "(DistributedSampler, batch size divided by WORLD_SIZE), and launch the entry "
        "script under torchrun. Not marked: it is derived again on every run; `--check` "
        "fails until it is resolved or silenced with `# noqa: DP094`.",
    ),
    "DP095": (
        "a squeeze with no dim of a model's output whose batch is a rank's part",
        "`torch.squeeze(out)` / `out.squeeze()` with no dim, `out` a wrapped model's output "
        "(through names and methods that keep its dims) given this rank's part of a batch. "
        "DataParallel squeezed the gathered output of the whole batch, which kept its batch "
        "dim; a rank's part may hold one sample (the last batch of a sharded loader, a batch "
        "of WORLD_SIZE), whose batch dim the squeeze drops, and the code after it reads "
        "another shape (JiaRenChang/PSMNet@87ac909: IndexError on both ranks at its test). "
        "Where the loaders' global batch sizes are literals above 1 the migration keeps the "
        "batch dim (`ddp_squeeze(out)`) and says nothing; a size of 1 is left as written. "
        "Warned where the global size is not a literal or the batch is split by the "
        "migration. Give squeeze the dims it means (`out.squeeze(1)`). Marked in the "
        "migrated file: `--check` fails until it is resolved or silenced with "
        "`# noqa: DP095`.",
    ),
    "DP096": (
        "a model called several times before one backward: static_graph=True",
        "The wrapped model may leave some parameters without a gradient (as DP041 says) and "
        "the program calls it two or more times, with gradients on, before one backward "
        "(a translation pass and encode-only passes for a feature loss). "
        "find_unused_parameters=True makes DDP mark ready, when a call returns, the "
        "parameters its output does not reach: a layer an earlier call used is then marked "
        'at the last call and again in the backward, and DDP raises "Expected to mark a '
        'variable ready only once" at the first backward; without it DDP waits for '
        "parameters a step leaves unused. dp2ddp passes static_graph=True: DDP records the "
        "first step's use and averages each gradient once; it raises at a step whose "
        "parameters differ from the first step's (a use that changes from step to step). "
        "It does not raise, and the ranks drift apart, where one of the calls is "
        "differentiated by torch.autograd.grad(..., create_graph=True) (a gradient penalty "
        "dp2ddp did not rewrite: DP023 at it; AttGAN's critic, stop 39): remove "
        "static_graph=True there and follow DP023. "
        'It raises too, at the third step on every rank ("Expected to have finished '
        'reduction in the prior iteration"), where forward computes an output that no loss '
        "uses (the heads of the scales a multi-scale loss leaves out, `--num-scales 1`: "
        "SC-SfMLearner's depth decoder, stop 40): those parameters are in every call's "
        "graph and get no gradient. There, where every call reaches the same parameters, "
        "find_unused_parameters=True in place of static_graph=True is the setting that runs "
        "(and trains as DataParallel did). "
        "Calls after a module-level `model = model.module` / `model = Net()` (and in functions "
        "only later statements call) are not the wrap's and are not counted. "
        "Marked in the migrated file: `--check` fails until it is resolved or silenced "
        "with `# noqa: DP096`.",
    ),
    "DP097": (
        "the wrapped model calls backward() inside its own forward()",
        "The model's forward() (or a method it calls) computes its losses and back-propagates "
        "them itself (`loss.backward()`), returning the losses. DataParallel ran that "
        "backward through its replicas; DDP averages gradients in a backward that runs "
        "after forward() returns, and none of its settings runs this one right: with "
        'find_unused_parameters=True DDP raises "marked as ready twice", without it '
        '"initialize_buckets must NOT be called during autograd execution", and with '
        "static_graph=True it runs, each rank stepping on its own gradients (silently; "
        "measured under torchrun x2, torch 2.13). dp2ddp keeps find_unused_parameters=True "
        "(it fails at the first step). Return the loss from forward() and call backward() "
        "after the call. Marked in the migrated file: `--check` fails until it is resolved "
        "or silenced with `# noqa: DP097`.",
    ),
    "DP098": (
        "a wrapped model grown after the wrap: its new layers are not synchronized",
        "A call through the wrapped model's `.module` adds parameters to it after the wrap "
        "(a progressive GAN's `model.module.grow_network()`, a method that assigns a new "
        "layer to `self`, `add_module`, `register_parameter`, or appends a layer to a "
        "ModuleList). DDP broadcasts rank 0's parameters and builds its gradient reducer "
        "over the parameters the module has at the wrap only: each rank draws the new "
        "layers from its own random stream and trains them on its own shard, so they "
        "part (silently; measured up to 6.2 apart under torchrun x2). The warning names "
        "the call, the wrap's line and the registering line. Wrap the grown module again "
        "after the call (`model = DistributedDataParallel(model.module, ...)`, which "
        "broadcasts rank 0's new weights) and rebuild the optimizer over its parameters. "
        "Marked in the migrated file: `--check` fails until it is resolved or silenced "
        "with `# noqa: DP098`.",
    ),
    "DP099": (
        "a library's printed report of a model runs on every rank",
        "A call of a library function that runs the model's forward and prints a report, "
        "its result dropped (`torchsummary.summary(model, sizes)`, `torchinfo.summary`, "
        "ptflops' `get_model_complexity_info`, thop's `profile`), prints on every rank "
        "(elvisyjlin/AttGAN-PyTorch@be2d6c6: `summary(self.G, ...)` in a class's "
        "`__init__`). dp2ddp puts it on rank 0 where the model it runs is proved not to be "
        "the DDP wrap there: the call comes after the model is built and before its wrap "
        "in the same function, or it runs the wrap's `.module`. Elsewhere it is left on "
        "every rank and said: a forward of the DDP wrap on rank 0 alone broadcasts buffers "
        "and waits for the other ranks (a hang). Run the report on the unwrapped model "
        "(`model.module`) under `if ddp_is_main():`, or before the wrap. Marked in the "
        "migrated file: `--check` fails until it is resolved or silenced with "
        "`# noqa: DP099`.",
    ),
}
