"""The texts of codes DP125 to DP149 (dp2ddp.codes merges them into CODES).

One dict literal per file, so that a repeated key stays visible (tests/test_docs.py)."""

from __future__ import annotations

from typing import Final

#: code -> (short title, what the user should do)
LATEST_HIGHEST: Final[dict[str, tuple[str, str]]] = {
    "DP125": (
        "a library call handed the batch's tensors before the model may pair their rows",
        "Between the loader and a call of the wrapped model, the training loop hands two or "
        "more tensors built from the batch to a function of a package dp2ddp does not read, "
        "and the model's input comes from what it returns "
        "(`t, xt, ut = FM.sample_location_and_conditional_flow(x0, x1)`, FM a torchcfm "
        "`ExactOptimalTransportConditionalFlowMatcher`, which pairs noise and data rows by "
        "an optimal-transport plan over the batch: atong01/conditional-flow-matching@cacd4dc, "
        "stop 50). DataParallel ran that call on the whole batch and scattered the result; "
        "under DDP each rank runs it on its own share. If the function treats each row on "
        "its own, nothing changes; if it pairs the rows with each other (a transport plan, "
        "a nearest-neighbour match, a shuffle to mix samples), each row is paired only among "
        "this rank's rows and the model's input is not this rank's share of what "
        "DataParallel fed it. Nothing was rewritten. Check what the function does; where it "
        "pairs rows and the pairing must span the whole batch, gather the rows from every "
        "rank first (`torch.distributed.all_gather`, where every rank arrives), pair them, "
        "and keep this rank's share. Then silence the warning with `# noqa: DP125`.",
    ),
    "DP126": (
        "a mean loss divided by this rank's share of the batch's size",
        "A loss that is already a mean over the batch (a torch.nn loss with its default "
        "reduction, `F.cross_entropy(...)`, `x.mean()`) is divided again by the size of the "
        "batch (`cost = criterion(preds, y) / images.size(0)`; Holmeyoung/crnn-pytorch@dc2f21a, "
        "stop 50). DataParallel divided the whole batch's mean by the whole batch's size; "
        "under DDP each rank divides its share's mean by its share's size and DDP averages "
        "the ranks, so every gradient is WORLD_SIZE times DataParallel's. Where every rank "
        "reaches the division as often, dp2ddp divides by `ddp_global_count(size)` (the "
        "ranks' sizes summed); here it could not prove that, and nothing was rewritten. "
        "Divide by the whole batch's size (`size * torch.distributed.get_world_size()`, "
        "where every rank's share is equal) or drop the division (the mean needs none), "
        "then silence the warning with `# noqa: DP126`.",
    ),
    "DP127": (
        "a batch padded to this rank's longest sample reaches a mean loss or the model",
        "A training loader's collate_fn (the program's own function or class) pads each "
        "batch to a length the batch decides (`pad_sequence`, a tensor of zeros as long as "
        "its longest sample, a padding helper handed that length). DataParallel collated the "
        "whole batch once: one length. Under DDP each rank collates only its share and pads "
        "it to its own longest sample (with samples of equal length: the same). Said at "
        "either of two places. (1) A mean loss over elements (`F.mse_loss(out, target)`, "
        "`nn.L1Loss()` with its default reduction) with no mask on its input, or a mean "
        "cross entropy with no `ignore_index` over the positions flattened into rows "
        "(`criterion(out.view(-1, C), y.view(-1))`: AdFiFi/MachineTranslation@d926914, "
        "stop 55), which the "
        "padded batch (or the model's output over it) reaches in the loop over the loader, "
        "or which lies where that loop is not followed (another function or module): the "
        "padded elements are counted in its denominator (Tomiinek/Multilingual_Text_to_Speech"
        "@2c75185, stop 50), so each rank divides by another count, over other padding, and "
        "DDP's average of the ranks' means is not DataParallel's mean. (2) A call of the "
        "wrapped model handed the padded batch (or a value computed from it) with no mask "
        "or lengths alongside (no argument naming `mask` or `len`, no "
        "`pack_padded_sequence`; dhpollack/bytenet.pytorch@9aba0ef, stop 51): a model that "
        "mixes positions (a convolution, attention, a recurrent layer) may give its real "
        "positions outputs that see padding of another length than DataParallel's, so "
        "outputs, loss and gradients may differ (a model that maps each position alone "
        "does not). Nothing was rewritten. Pad every batch to a fixed length (or the "
        "dataset's longest), or mask the padding: hand the model a mask or the lengths, and "
        "divide a masked sum by the whole batch's count of real elements (`all_reduce` the "
        "count); then silence the warning with `# noqa: DP127`.",
    ),
    "DP128": (
        "a graph traced from a model not proved unwrapped",
        "TensorBoard's `writer.add_graph(model, x)` (tensorboardX's too) traces the model's "
        "forward with torch.jit.trace. Handed the DDP wrap of a model holding buffers "
        "(BatchNorm's running statistics), the trace fails on the rank that runs it: DDP's "
        "forward broadcasts the buffers over the process group, which "
        'is no part of the trace ("Tried to trace <...ProcessGroup...> but it is not part '
        'of the active trace"), and the other ranks lose their peer '
        "(FFly/pytorch-cifar10-all-in-gpu@93d9401, stop 61). dp2ddp traces `model.module` "
        "where the argument is proved the wrap at the call (its nearest binding before the "
        "call, in the blocks around it in the same function, a plain assignment of a wrap). "
        "This warning means the argument is a name or attribute dp2ddp wrapped in DDP, "
        "proved neither the wrap nor the unwrapped model there (bound in another method, as "
        "`self.model` in `__init__`, or on one branch): nothing was rewritten. Pass the "
        "wrap's `.module` (the model's own layers, the graph the original's one-device run "
        "drew).",
    ),
    "DP130": (
        "a shuffled evaluation loader left before the end: each pass the same samples",
        "An evaluation loader gets ddp_eval_sampler (each rank a strided slice, no sample "
        "twice) and its shuffle is dropped: the order changes no figure summed over a whole "
        "pass. But its loop may leave before the end (`if batch_idx + 1 == n: break`, an "
        "estimate from the first n batches): then the order decides which samples are "
        "evaluated. The original drew a new random subset each pass; each rank now takes "
        "the first samples of its fixed slice, the same every pass, so the figure is that "
        "subset's, and a set sorted by class gives a skewed one "
        "(yaircarmon/semisup-adv@3f05b28, stop 63: the training-set figures from the "
        "first batches of `eval_train_loader`). Where a random subset matters, evaluate "
        "the whole set, or draw the subset yourself, alike on every rank (a seeded "
        "`torch.randperm` sliced per rank); then silence the warning with "
        "`# noqa: DP130`.",
    ),
    "DP131": (
        "a module imported by a run-time name may draw apart on each rank",
        "The program imports a module by a name neither its code nor a configuration file "
        "gives (`importlib.import_module(args.dataset)`), so dp2ddp could not read it, and "
        "modules of the project it does not read draw from a process-wide stream (torch's, "
        "numpy's, `random`) that the program does not seed alike on every rank. If the "
        "module imported is one of them, each rank draws its own numbers there: a dataset "
        "that draws its split or its samples in `__init__` differs between the ranks, and "
        "the DistributedSampler shards different data (stop 62). Seed that stream with one "
        "value on every rank before the import, or import the module by a name the code "
        "gives; then silence the warning with `# noqa: DP131`.",
    ),
    "DP132": (
        "an image grid saved by rank 0 holds this rank's rows of the batch",
        "The training loop joins the step's batch and the wrapped model's output into an "
        "image grid and saves it (`save_image(torch.cat((x, out)), path)`; "
        "diyiiyiii/StyTR-2@c11ea32, stop 50). DataParallel's grid held every row of the "
        "batch; under torchrun each rank holds its share, and the save, on rank 0 alone, "
        "writes rank 0's rows: half the images with 2 processes. Where the grid is bound by "
        "`torch.cat` along dim 0 of names of the step's rows, read by nothing else, and every "
        "rank reaches it, dp2ddp gathers each part from every rank (`ddp_gather_rows`) and "
        "the grid is whole without a word; this grid is not proved so (the message says "
        "which part). The same for a grid made by `make_grid` (shown by the caller: "
        "`writer.add_image(tag, make_grid(x))`), and for an image made or saved after the "
        "loop of the last step's rows (the loop's leftover batch, or the model's output on "
        "it: csdwren/PReNet@97b2f77, stop 55): never gathered, always said. Gather its rows "
        "from every rank where every rank arrives, outside the rank-0 guard "
        "(`torch.distributed.all_gather`), or accept rank 0's share; then silence the "
        "warning with `# noqa: DP132`.",
    ),
    "DP133": (
        "a global batch smaller than WORLD_SIZE cannot be divided between the ranks",
        "DataParallel's batch size is the global batch, and dp2ddp keeps that meaning by "
        "loading `ddp_per_rank_batch(B)` (B // WORLD_SIZE) on each rank. This batch size is "
        "proved to be 1 (a literal, or a default the program reads; WenbinLee/DN4@440857b's "
        "`--episodeSize 1`, stop 50; a parameter's default where another module may call "
        "the function: the text says it is 1 for the calls that leave it out, a call's "
        "own value being seen only in its module): no rank can load less than 1, so each "
        "rank loads 1 sample (`ddp_per_rank_batch` says so at run time too), the global batch is "
        "WORLD_SIZE samples instead of 1, and an epoch has 1/WORLD_SIZE of the original's "
        "steps (a schedule stepped per epoch or per step then moves otherwise): a loader "
        "that trains trains otherwise than the original, and an evaluation's per-batch "
        "figures are each over one sample of a step of WORLD_SIZE. Run with a batch size of "
        "at least WORLD_SIZE (the learning rate scaled as you judge), or with one process "
        "(`--nproc_per_node=1`); then silence the warning with `# noqa: DP133`.",
    ),
    "DP134": (
        "a training step handed to a call dp2ddp does not read",
        "A loop hands the loss (a value computed from the wrapped model's output with "
        "gradients on) and the optimizer to one call, and runs no backward and no optimizer "
        "step of its own: the step runs inside that call (timm's `loss_scaler(loss, "
        "optimizer, parameters=model.parameters())` runs `backward()` and "
        "`optimizer.step()`: ZhendongWang6/Uformer@65fc970, stop 49 b1-B). dp2ddp reads the "
        "program's own functions and classes, and takes a library's callable handed both "
        "for a step; this callable it could not read (a parameter, an object whose class is "
        "not known, another module's function with no summary, or several callables of "
        "which only some step). The loop is taken for training, not for an evaluation: its "
        "loader is sharded (each rank trains its share, DDP averages the gradients in the "
        "backward the call runs). If the call does not run the backward pass and the "
        "optimizer's step, the loop is an evaluation: its figures are this rank's share: "
        "run it under `torch.no_grad()` or build its loader with `shuffle=False` and leave "
        "it whole. Then silence the warning with `# noqa: DP134`.",
    ),
    "DP135": (
        "a shuffled loader returned in a shape not followed to its callers' loops",
        "A function of the program builds a shuffled DataLoader that no loop of its module "
        "iterates and puts it in a list it returns in a shape dp2ddp does not follow: one "
        "loader per requested split appended in a loop (`for mode in modes: ... "
        "loaders.append(loader)`, `return loaders`; WenbinLee/DN4@440857b's "
        "`get_Fewshot_dataloader`, stop 49). The callers unpack the list "
        "(`train_loader, val_loader, test_loader = get_loaders(opt, ['train', 'val', "
        "'test'])`), but which item each of their loops reads was not followed, so the "
        "loader's role was left as its `shuffle` flag says: sharded as training data. If a "
        'caller evaluates it (a validation set shuffled "to see progress"), its figures '
        "are this rank's share: rank 0 prints, writes and compares (a best checkpoint) "
        "figures of its part only. Return the loaders as a tuple or a list literal of "
        "their own calls (dp2ddp follows those to the loops that use them), or build an "
        "evaluation loader with `shuffle=False` (left whole, DP015); then silence the "
        "warning with `# noqa: DP135`.",
    ),
    "DP136": (
        "a loss divided by a count handed in, not proved the batch's sample count",
        "A loss is divided by a value its function is handed (`loss = self.criterion(x, y) "
        "/ norm`, `norm` a parameter no call of the module binds: patelrajnath/pytorch-dl"
        "@008c0e9's `SimpleLossCompute`, called with `batch.ntokens`, the batch's count of "
        "target tokens that are not padding) before it is backpropagated. DataParallel "
        "computed this once, on the gathered outputs: the whole batch's loss over the "
        "whole batch's count. Under DDP each rank divides its own part's loss by its own "
        "part's count and DDP averages the ranks equally: where the count is this rank's "
        "sample count (its rows, `x.size(0)`) that is DataParallel's mean, but where the "
        "data decides it (tokens not padding, positive anchors, characters) the ranks' "
        "counts differ and every sample is weighted by its rank's count, silently. The "
        "loss is then a mean over that count, not a sum: a summed reduction inside it "
        "(DP004) must not be multiplied by WORLD_SIZE. Nothing was rewritten (the caller's "
        "count was not followed). To keep DataParallel's loss, divide by the global count "
        "over WORLD_SIZE: all-reduce the count (`torch.distributed.all_reduce`, reached by "
        "every rank on every step) and divide by it over "
        "`torch.distributed.get_world_size()`; where the value is the same on every rank "
        "(a constant, a number of accumulation steps) nothing differs. Then silence the "
        "warning with `# noqa: DP136`.",
    ),
    "DP137": (
        "a mean loss over rows not proved the batch's samples",
        "A mean cross entropy (CrossEntropyLoss, NLLLoss, F.cross_entropy, F.nll_loss, "
        "reduction 'mean') is backpropagated over targets whose rows are not the batch's "
        "samples as far as the code shows: program code builds them from the batch "
        "(`text, length = encode(texts)` flattening each label's characters into one "
        "row each), or they are a buffer the program fills (`text = torch.LongTensor("
        "opt.batchSize * 5)` filled by a helper: Canjie-Luo/MORAN_v2@410596f), whose "
        "count the batch's data may decide. DataParallel computed the mean once, on the "
        "gathered outputs: over all of the batch's rows. Under DDP each rank averages over "
        "its own part's rows and DDP averages the ranks equally, so where the ranks' row "
        "counts differ (longer words on one rank) every row is weighted by its rank's "
        "count, silently. Nothing was rewritten. Where the rows are one per sample of "
        "this rank's batch (or as many on every rank) nothing differs: silence the "
        "warning with `# noqa: DP137`. Else take reduction='sum', divide by the global "
        "row count (the rows' count all-reduced with torch.distributed.all_reduce, "
        "reached by every rank on every step) and multiply by "
        "`torch.distributed.get_world_size()`.",
    ),
    "DP139": (
        "the batch's rows paired at a fixed offset: each rank pairs within its own share",
        "A training loop pairs each row of the batch with another row of the same batch "
        "chosen by position on the way to the wrapped model: `x.roll(1, 0)`, `torch.flip(x, "
        "[0])`, `x[(torch.arange(n) + 1) % n]`, a helper's `x[(i + 1) % B]` in a loop over "
        "the rows (mixup partners: takahikof/RIPT_SDMM@fca73d3's `point_mixup`). Under "
        "DataParallel the loop paired the whole global batch before scattering it; under "
        "DDP each rank pairs only its own share (its last row with its own first), so the "
        "pairs, and the training, differ from DataParallel's. Nothing was rewritten. Accept "
        "per-rank pairs (what DDP programs usually do), or gather the batch from every rank "
        "(`torch.distributed.nn.functional.all_gather`) and pair within it; then silence "
        "the warning with `# noqa: DP139`. A per-sample operation (a row with itself) is "
        "not said.",
    ),
    "DP140": (
        "the global batch size handed beside this rank's rows to a function not read here",
        "The data pass reads a loader's batch_size per rank (`batch_size=ddp_per_rank_batch("
        "B)`), so each rank's batch holds B / WORLD_SIZE samples. The training loop hands B "
        "itself, beside an output of the wrapped model or a part of that batch, to a "
        "function of the program this module does not read (another module's: shjo-april/"
        "PuzzleCAM@659b4c1's `merge_features(tiled_features, args.num_pieces, "
        "args.batch_size)`, which splits the output of the batch's tiles into pieces of B "
        "rows). Under DataParallel the output held the whole batch, so B rows were one "
        "sample each; on a rank they are WORLD_SIZE times its rows: a split, a reshape or a "
        "`range(B)` there fails on every rank (IndexError at the first step) or pairs other "
        "samples. Where dp2ddp reads the function (this module's own) and proves B a "
        "dimension of a tensor there, it passes ddp_per_rank_batch(B); here it did not "
        "rewrite the call. Read the function: where it sizes, splits or counts the rows it "
        "is given by that argument, pass `ddp_per_rank_batch(B)` (from the generated "
        "helpers module) or the rows' own size (`x.size(0)`); then silence the warning with "
        "`# noqa: DP140`.",
    ),
    "DP141": (
        "a partly wrapped child held beside parameters of the holder's own",
        "A module holds a child that DataParallel wraps only a part of (`self.twin = "
        "Twin()` where Twin's `__init__` does `self.encoder = nn.DataParallel(...)`), "
        "beside attributes of its own that hold parameters (`self.head = nn.Linear(...)`), "
        "and wraps nothing itself. Under DataParallel one process trained all of them. "
        "The migration turns the inner wrap into a DDP, which averages the gradients of "
        "the wrapped part only: the holder's own parameters get each rank's gradient and "
        "train apart on each rank, silently. Wrap the whole model the optimizer trains in "
        "DDP instead of its part (and drop the inner wrap), then silence the warning with "
        "`# noqa: DP141`.",
    ),
    "DP142": (
        "a table written in place at the batch's indices over a sharded loader, read after "
        "the pass",
        "A loop over a sharded loader adds or writes into a table in place at indices its "
        "batch gives (`centers.index_add_(0, labels, feats)`, `counts.index_add_(0, labels, "
        "ones)`, `scatter_add_`, `index_copy_`, `index_put_`) and the table is read after the "
        "loop: class centres or counts, a histogram of labels, rows kept by sample index. "
        "DataParallel's one process wrote every sample of the pass; under DDP each rank "
        "writes only its own samples, so each rank's table holds its share (a row one rank "
        "never saw keeps its start value: centres "
        "divided by a zero count are NaN there) and differs between the ranks. Where the "
        "table is only shown, rank 0 shows its share; where training reads it again (a "
        "loss over class centres in the next epoch), every rank trains on its own table, "
        "not DataParallel's, silently. Nothing was rewritten: a sum over the ranks would "
        "count twice the samples DistributedSampler repeats to even the ranks out, and a "
        "table carried across passes would be summed again on each pass. Sum what this "
        "pass added over the ranks after the loop (`torch.distributed.all_reduce(delta)` "
        "of a table started at zeros for the pass, then add it to what was carried), with "
        "drop_last=True on the sampler or a dataset that divides by WORLD_SIZE; then "
        "silence the warning with `# noqa: DP142`.",
    ),
    "DP143": (
        "the program reads the sampler of a loader whose sampler the migration replaced",
        "A sharded loader gets a sampler from the migration (a DistributedSampler, "
        "DdpDistributedSampler or ddp_eval_sampler where the original had the "
        "SequentialSampler or RandomSampler DataLoader builds from `shuffle=`, or a "
        "shuffle-only sampler of its own; DdpSamplerShard or DdpBatchShard around a sampler "
        "or batch sampler of the program's), and code of the program reads the loader's "
        "`sampler` (or `batch_sampler`) back: it gets the migration's object, not the one "
        "DataParallel's run had. A test of its class (`assert "
        "isinstance(loader.sampler, SequentialSampler)`) is false now, and an assert on it "
        "stops every rank; an attribute or method of the original's sampler "
        "(`loader.sampler.indices`, `.state_dict()`) is the new object's, or missing; "
        "`len(loader.sampler)` counts this rank's share of the samples, not the dataset's "
        "or the original sampler's count. Nothing was rewritten. Test or count what the "
        "program means another way (the dataset, its length, the shuffle flag) or drop the "
        "check; then silence the warning with `# noqa: DP143`. Not warned: `set_epoch` on "
        "it, what the new sampler is for, and other reads of a shard (DdpSamplerShard, "
        "DdpBatchShard), which hands them on to the program's own sampler.",
    ),
    "DP146": (
        "a list of trained tensors kept or grown where dp2ddp cannot follow it",
        "The optimizer is handed a list whose every binding builds tensors it trains that "
        "no module holds (`extra = make_extra()` returning `[nn.Parameter(...), ...]`, "
        "`ps = [...]`), but the list is also read where it may be kept or grown by "
        "something not proved such a tensor (`extra.append(w)`, `register(extra)`, "
        "`self.extra = extra`), or an `nn.ParameterList` an object holds (`head.shift`) "
        "is grown by something not proved such a tensor (`head.shift.append(make())`; "
        "grown by `nn.Parameter(...)` tensors only, it is synced as it stands after the "
        "optimizer's statement). DataParallel trained one copy of each on the whole batch's "
        "gradient; DDP averages only the wrapped model's gradients, so each rank steps its "
        "own copies on its share's gradient and the ranks drift apart. dp2ddp syncs such a "
        "list where it proves every element (`list(map(ddp_sync_tensor, extra))` after the "
        "optimizer's statement: rank 0's values, the gradient averaged); here it did not. "
        "Add that line yourself after the optimizer's statement (every element a tensor "
        "the optimizer trains, reached by every rank), or hold the tensors in a module "
        "inside the wrapped model; then silence the warning with `# noqa: DP146`.",
    ),
    "DP147": (
        "the batch's rows taken in a drawn order: each rank permutes its own share only",
        "A training loop takes the batch's rows in a drawn order (a permutation) on the way "
        "to the wrapped model, most often to mix the batch with itself: mixup's `perm = "
        "torch.randperm(x.size(0)); x = lam * x + (1 - lam) * x[perm]`, CutMix's "
        "`x[:, :, a:b, c:d] = x[perm, :, a:b, c:d]`, a target paired as `y[perm]`. Under "
        "DataParallel the loop permuted the whole global batch before scattering it, so a "
        "row's partner came from any row of it. Under DDP each rank permutes only its own "
        "share: partners come from that rank's rows only, and where the program seeds its "
        "generators alike on every rank (`torch.manual_seed`, `np.random.seed`, "
        "`random.seed`) every rank draws the same permutation and the same mixing weight "
        "(`lam`) on each step. Nothing was rewritten; the training differs from "
        "DataParallel's. Either accept per-rank mixing (the usual DDP practice) and seed "
        "each rank's draws differently (e.g. `torch.manual_seed(seed + rank)`, and likewise "
        "numpy's and Python's, after the process group is set up), so the ranks draw "
        "different partners and weights; or gather the global batch before mixing "
        "(`torch.distributed.all_gather`) to pair rows across all of it. Then silence the "
        "warning with `# noqa: DP147`.",
    ),
    "DP148": (
        "a training step handed to a library with an optimizer dp2ddp does not see built",
        "A loop hands the loss (a value computed from the wrapped model's output with "
        "gradients on) and an object whose gradients it clears (`optimizer.zero_grad()`) "
        "to a library's callable (timm's `loss_scaler(loss, optimizer, parameters=...)`), "
        "and runs no backward and no optimizer step of its own; the object was not built "
        "by a `torch.optim` class in this module (a library's factory such as timm's "
        "`create_optimizer_v2(model, ...)`, another module's `build_optimizer(cfg, model)`, "
        "a parameter), so dp2ddp cannot prove the call steps. A nested `no_grad()` block "
        "(an EMA update, a metric) does not make such a loop an evaluation: it is taken for "
        "training, its loader sharded (each rank trains its share, DDP averages the "
        "gradients in the backward the call runs). If the call does not run the backward "
        "pass and the optimizer's step, the loop is an evaluation: its figures are this "
        "rank's share: run it under `torch.no_grad()` or build its loader with "
        "`shuffle=False` and leave it whole. Then silence the warning with `# noqa: DP148`.",
    ),
}
