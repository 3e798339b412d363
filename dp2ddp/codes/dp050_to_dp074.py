"""The texts of codes DP050 to DP074 (dp2ddp.codes merges them into CODES).

One dict literal per file, so that a repeated key stays visible (tests/test_docs.py)."""

from __future__ import annotations

from typing import Final

#: code -> (short title, what the user should do)
LATER: Final[dict[str, tuple[str, str]]] = {
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
        "A mean over the batch dimension or every element (`p.mean(0)`, a relativistic GAN's "
        "`bce(real - torch.mean(fake), ones)`) goes through a non-linear function (a log, an "
        "entropy helper, a loss) before the loss. DataParallel gathered the model's outputs and "
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
        "number, a computed size), and where the size is read outside the loop over a "
        "loader and compared with an attribute a DataLoader of the program takes its "
        "batch_size from (a trainer's `is_train()`: `self.real_A.size(0) == "
        "self.opt.batch_size`, junyanz/BicycleGAN@40b9d52, where every batch was skipped) "
        "unless it is proved there the batch a method of the class kept from loops over "
        "sharded loaders (every call of `set_input(batch)` in this module is such a loop's, "
        "and the attribute is spelled as their batch_size): then it is read per rank too. "
        "Compare with ddp_per_rank_batch(B), or with the size of the batch the loader was "
        "built to give.",
    ),
    "DP062": (
        "the program undoes the wrap before it trains",
        "The program wraps the model and then takes the wrapper back out (`model = "
        "nn.DataParallel(model, dim=1)`, then `if isinstance(model, nn.DataParallel): model = "
        "model.module`, vansky/neural-complexity@3c057f8), so its optimizer, training loop and "
        "saves use the bare module. Under DataParallel that wrap changed nothing: one process "
        "trained on the whole batch. Migrated, each rank gets its share of the batches while "
        "the module it trains is not the DDP wrapper: no gradient is averaged, every rank "
        "trains its own copy, the copies drift apart from the first step, and rank 0's is the "
        "one saved. Nothing fails. Keep training the wrapper (read `model.module` only where "
        "the inner model's own attributes are needed), or drop the wrap and the unwrap both "
        "and train the bare module on the whole batch on every rank.",
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
        "`__call__` draws so (a library's transforms are not seen). Under DataParallel one "
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
}
