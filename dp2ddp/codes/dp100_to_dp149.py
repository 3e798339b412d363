"""The texts of codes DP100 to DP149 (dp2ddp.codes merges them into CODES).

One dict literal per file, so that a repeated key stays visible (tests/test_docs.py)."""

from __future__ import annotations

from typing import Final

#: code -> (short title, what the user should do)
LATEST: Final[dict[str, tuple[str, str]]] = {
    "DP100": (
        "the wrapped module called bare in the else of a device guard",
        "The program wrapped a module in DataParallel under a device guard (`if self.gpuid:`, "
        "`if args.cuda:`) and called the bare module in the guard's else branch (`model = "
        "nn.DataParallel(self.net); out = model(x)` / `else: out = self.net(x)`: "
        "JusperLee/Dual-Path-RNN-Pytorch@87b6301's Trainer, stop 42 v3-G). dp2ddp moves the "
        "wrap out of the guard so that every process wraps, but the else branch still calls "
        "the module past the DDP wrapper: on that path (a CPU run under torchrun, the flag "
        "off) each rank trains its shard of the batches with no gradient averaged, and the "
        "ranks drift apart in silence. Call the wrapped name in the else branch too (after "
        "the wrap), or drop the branch. Marked in the migrated file: `--check` fails until it "
        "is resolved or silenced with `# noqa: DP100`.",
    ),
    "DP101": (
        "a mkdir call not proved to be pathlib's: left as written",
        "Every rank runs the program's directory creation under torchrun, so dp2ddp adds "
        "`exist_ok=True` to `os.makedirs(d)` and to pathlib's `path.mkdir()`: the second rank "
        "then finds the directory made instead of raising FileExistsError. A call spelled "
        "`x.mkdir(...)` is pathlib's only where nothing says otherwise: the program defines a "
        "`mkdir` method of its own (hansen7/OcCo@4a236a6's TrainLogger calls `self.mkdir()`, "
        "which takes no exist_ok: the keyword made both ranks raise TypeError), or "
        "`self.mkdir()` runs a method the class inherits. `self.mkdir()` in a class that "
        "defines `mkdir` is left as it is without a word (its body is migrated in its own "
        "right); the other calls are left as written and said here. If the call is a "
        "pathlib path's, add `exist_ok=True` or make the directory on rank 0 before the "
        "other ranks use it; if it is the program's own method, nothing is wrong (`# noqa: "
        "DP101`). The call is left as written, so `--check` finds it again in the migrated "
        "file until it is resolved or silenced.",
    ),
    "DP102": (
        "a wrapped model whose forward() is not read: find_unused_parameters=True",
        "The wrapped model is built by a class or factory of a library (an installed "
        "package, no file of the program: `BertForTokenClassification.from_pretrained(...)`, "
        "`torchvision.models.resnet50()`, `timm.create_model(...)`), or loaded whole "
        "(`torch.load`, `torch.jit.load`, `torch.hub.load`: its class is not known "
        "statically). dp2ddp reads the "
        "forward() of the program's own classes to prove that every parameter gets a "
        "gradient in each step (DP041 where not); a library's it does not read: its code "
        "depends on the version installed where the program runs, not on the program. A "
        "library model may compute parameters no loss uses (the pooler of "
        "pytorch_pretrained_bert's BertForTokenClassification, lemonhu/NER-BERT-pytorch@"
        '5f7577b: both ranks failed at the second step with "Expected to have finished '
        'reduction in the prior iteration", no warning before stop 41). dp2ddp passes '
        "find_unused_parameters=True, which runs either way: a model that uses every "
        "parameter pays one walk of the autograd graph per step (and torch warns once); "
        "a crash is the other cost. Where the model is known to use every parameter in "
        "every step, remove the keyword (or keep it) and silence the warning with "
        "`# noqa: DP102`; `dp2ddp verify --nproc 2` without the keyword names the "
        "parameters that got no gradient, if any. A model built by the program's own "
        "class that holds a library model (`self.bert = BertModel(config)`) is judged by "
        "its forward(): what it does with the library model's outputs (DP041). Marked in "
        "the migrated file: `--check` fails until it is resolved or silenced with "
        "`# noqa: DP102`.",
    ),
    "DP104": (
        "a sharded sampler's state read back: where its drawing stands, not what was trained",
        "The program reads its own sampler's state back through a loader dp2ddp shards "
        "through that sampler (`loader.sampler.state_dict()`: DdpSamplerShard or "
        "DdpBatchShard answers the names it does not define with the user's sampler's, "
        "ruotianluo/ImageCaptioning.pytorch@4c48a33's MySampler, stop 42). The shard draws "
        "the global batches ahead of the steps (the first len() items of a pass at once, in "
        "one block every rank draws alike), so the position the sampler reports is where "
        "the drawing stands, not what this rank has trained on: a run resumed from it skips "
        "the rest of the pass (DataParallel's loader had drawn only a few batches ahead, "
        "which the program subtracted). The training itself is right. Resume at a pass "
        "boundary, or save the position from the training loop's own count of steps. Marked "
        "in the migrated file: `--check` fails until it is resolved or silenced with "
        "`# noqa: DP104`.",
    ),
    "DP105": (
        "a table of the whole dataset filled by sample index in a pass over a sharded loader",
        "A loop over a loader dp2ddp shards writes rows of a table by the samples' own "
        "indices, which the batch carries (`table[idx] = F.softmax(model(x), 1)` with "
        "`for x, idx in loader:`, a pseudo-label pass of yukimasano/self-label@3891e37, "
        "stop 44), and the table made before the loop is read after it: normalised over "
        "all samples, its argmax taken as labels. Under DataParallel one process went "
        "through every sample and filled every row. Sharded, each rank fills only the "
        "rows of its own samples; the others keep what they held (zeros), so what is read "
        "after the pass differs between the ranks and from the original (self-label's "
        "Sinkhorn step divided by the empty rows: NaN, then a crash; with fewer rows read, "
        "different labels on each rank, silently). dp2ddp makes it whole itself where it "
        "proves the table a torch tensor or numpy array written by a plain `=` at one "
        "index, not read elsewhere in the pass, in a loop every rank runs (each write keeps "
        "its index; `ddp_whole_table` after the loop gathers every rank's indices and rows); "
        "the warning says which of these was not proved. Make the table whole on every rank "
        "after the pass, reached by every rank: `dist.all_reduce(table)` of a "
        "zero-initialised table where each sample is written once (DistributedSampler "
        "repeats samples to even the ranks out: write each index once, or gather the "
        "indices and rows with `dist.all_gather` and write them in), or leave this pass's "
        "loader whole. Marked in the migrated file: `--check` fails until it is resolved "
        "or silenced with `# noqa: DP105`.",
    ),
    "DP106": (
        "a figure divided by a chunk size now read per rank, not proved of which batch",
        "A loop cuts each batch into chunks of a configured size (gradient accumulation: "
        "`sub = bs // accu`, `x[k * sub:(k + 1) * sub]`). Each rank now holds its part of "
        "the batch, so dp2ddp reads the size as this rank's part, `ddp_per_rank_batch(sub)`, "
        "where it cuts or counts the batch, and where it divides a figure of this rank's "
        "chunk (`loss.item() / sub`, a per-sample loss: MILVLG/mcan-vqa@6b165e9 printed it "
        "halved, with no warning, before stop 43), so the figure is the chunk's per-sample "
        "one still. A size that divides a configured size (`BATCH // sub`, a count of "
        "chunks) keeps its global value. Warned where the divided value is neither proved "
        "a figure of this rank's batch nor a configured size (a call's result dp2ddp does "
        "not follow): with the global size a per-rank sum shows 1 / WORLD_SIZE of its "
        "per-sample value. Write `ddp_per_rank_batch(sub)` there if the value is this "
        "rank's, or keep the size if it is a global one. Marked in the migrated file: "
        "`--check` fails until it is resolved or silenced with `# noqa: DP106`.",
    ),
    "DP107": (
        "a layer of the wrapped model replaced after the wrap, not wrapped again",
        "An assignment through the wrapped model's `.module` replaces one of its layers "
        "after the wrap (`cnn.module.fc = nn.Sequential()` to take a backbone's features, "
        "fartashf/vsepp@abe382f, its wrap made in a helper that returns it), or sets it to "
        "None. DataParallel replicated the module as it was at each forward, so the change "
        "took effect; DDP built its gradient reducer over the parameters the module held "
        "at the wrap: the replaced layer's parameters get no gradient and DDP raises "
        '"Expected to have finished reduction in the prior iteration" at the second step '
        "on every rank, and a new layer's parameters are drawn and trained by each rank on "
        "its own. Where it is proved safe dp2ddp wraps the module again right after the "
        "assignment (`cnn = ddp_rewrap(cnn)`: the assignment in the block of the statement "
        "that binds the wrap, nothing leaving that block early between them, the wrap read "
        "only through `.module` there). Warned where not (another name may hold the old "
        "wrapper, or the assignment is in another block or function); the warning names "
        "the assignment and the wrap's line. Make the assignment on the module before it "
        "is wrapped (in the helper that wraps it), or wrap again after it "
        "(`cnn = DistributedDataParallel(cnn.module, ...)`) before any other name takes "
        "it. Marked in the migrated file: `--check` fails until it is resolved or "
        "silenced with `# noqa: DP107`.",
    ),
    "DP108": (
        "a training step runs the wrapped model through .module: past DDP",
        "The program calls its DataParallel model's module directly in a step that "
        "backpropagates: `model.module(x)`, a method of the module's own class that "
        "runs its forward and its backward (`model.module.train_step(xb, yb)`), or a "
        "method of a model class of the program that runs its layers (a GAN's "
        "`gen.module.infer(z)`), or one no method of that name is proved not to. Under "
        "DataParallel that computed the whole batch on one device, and the update was "
        "right. Under DDP the call skips the wrapper, whose forward arms the averaging of "
        "the gradients over the ranks: each rank steps on the gradient of its own shard "
        "and the ranks drift apart, with no error. Call the wrapper instead "
        "(`model(x)`), with the step's forward, loss and backward in the training loop "
        "(a method of the module cannot be run through the wrapper), or average the "
        "gradients over the ranks by hand before the step. Marked in the migrated file: "
        "`--check` fails until it is resolved or silenced with `# noqa: DP108`.",
    ),
    "DP110": (
        "indentation Python reads but libcst's parser does not",
        "Lines of the file mix tabs and spaces in their indentation in a way Python accepts "
        "(it reads a tab as a move to the next multiple of 8 columns) but libcst's parser, "
        "which dp2ddp rewrites with, does not: a block's indentation must begin with the "
        "text of the enclosing block's (`    \\t    `, column 12, inside a block indented "
        "by 8 spaces: jalola/improved-wgan-pytorch@2a3d3d5). dp2ddp wrote those lines' "
        "indentation again, as the enclosing block's followed by spaces to the column "
        "Python reads, and kept every other byte; Python's syntax tree of the rewritten "
        "text is the original's (`ast.dump`), so the program is the same. Said once, when "
        "the file is migrated (a file with nothing to migrate is left as it was); the "
        "migrated file has nothing left to say, so `--check` does not fail on it "
        "(`# noqa: DP110` silences it).",
    ),
    "DP111": (
        "an HDF file opened for writing on every rank",
        '`h5py.File(path, mode)` with a mode that changes the file ("a", "x", "w-") or '
        'opens it for writing ("r+", even where the program only reads through it) '
        "runs on every rank here, outside a block dp2ddp can put on rank 0 whole (its body "
        "does more than write: it loads, computes, loops): every rank would open and "
        "change the one file, and HDF5 does not take two writers (a corrupt file, or "
        '"unable to lock file" on the second rank). dp2ddp sends a file opened with "w" '
        "to a scratch file off rank 0 (`ddp_discard_path()`) and puts a barrier before "
        "every rank reads it (f90/Wave-U-Net-Pytorch@86c113d's `hdf/train.hdf5`); these "
        'modes cannot go to a scratch file ("a" appends to what is there, "x" fails on '
        'an existing file, "r+" changes it in place). Open a file you only read with '
        '"r" (HDF5 lets every rank read it); build one you write on rank 0 '
        "(`if ddp_is_main():` around the block, then `torch.distributed.barrier()` before "
        "the first read), then silence the warning with `# noqa: DP111`.",
    ),
    "DP112": (
        "a whole batch every rank trains on is drawn apart on each rank",
        "A model in a training loop is given a batch computed whole on every rank (not a "
        "part of a sharded loader's), drawn from numpy's or Python's random stream, which "
        "the program does not seed alike on every rank: each process draws a batch of its "
        "own, and DDP averages the gradients of different batches where DataParallel "
        "trained one. dp2ddp runs such a draw inside `with ddp_same_random():` (every rank "
        "takes rank 0's numbers) where its statement is one every rank runs; this one is "
        "under a condition, a loop, a `try` or a `with`, and the helper exchanges the "
        "generators' state with a collective every rank must reach. Seed the stream alike "
        "before it (`np.random.seed(0)` on every rank), or draw it where every rank "
        "passes, then silence the warning with `# noqa: DP112`.",
    ),
    "DP113": (
        "a sample of the last batch picked by a constant position after the loop",
        "After the training loop, a name that held the last batch or the model's last output "
        "is read at a constant position other than 0 (`padded_mels[-1]`, `y_pred_post[-1]` "
        "saved or plotted as a preview: AidenMoosa/Tacotron2@699a211). Under DataParallel it "
        "held the whole gathered batch, so `[-1]` was the global batch's last sample; under "
        "DDP it holds rank 0's part only, and the same position picks another sample of the "
        "batch (the global batch's last one was on the last rank), with no error. Position 0 "
        "is the same sample in both (a DistributedSampler in order gives rank 0 positions "
        "0, W, 2W, ..., a contiguous shard the batch's first part: rank 0's part starts at "
        "the batch's first sample), so nothing is said for it. A constant slice of rows "
        "(`x[:4]` for a sample grid or a debug forward) is said alike unless it takes "
        "position 0 alone: rank 0's part holds positions 0, W, 2W, ..., not the global "
        "batch's first rows. Nothing was rewritten (the "
        "sample DataParallel showed is on another rank). Take index 0, or gather the "
        "tensor from every rank first (`torch.distributed.all_gather`, where every rank "
        "arrives) and pick from the gathered batch in DataParallel's order, then silence "
        "the warning with `# noqa: DP113`.",
    ),
    "DP114": (
        "a store on the wrapper is left under the guard the wrap moved out of",
        "A device guard wraps the model and then stores an attribute on the wrapper "
        "(`if device == 'cuda': net = nn.DataParallel(net); net.dim = dim`). dp2ddp moves "
        "the wrap out of the guard, since every process must wrap, on CPU too; a store "
        "that re-exposes the module's own attribute (`net.dim = net.module.dim`, or "
        "`net.dim = dim` with `dim = net.dim` read just before the wrap) moves out with "
        "it. This store could not be proved to give the wrapper the module's own value, "
        "so it was left under the guard: where the guard is false the wrapper lacks the "
        "attribute and reading it raises AttributeError on the DistributedDataParallel "
        "object, or reads another value than the original's unwrapped model gave. Move "
        "the store after the wrap where that holds on every device (or read "
        "`net.module.dim`), then silence the warning with `# noqa: DP114`.",
    ),
    "DP115": (
        "code outside a partial wrap compares the whole batch's rows",
        "DataParallel wrapped only a part of the model (a submodule its unwrapped owner "
        "holds: `self.encoder = nn.DataParallel(enc)`, a loss module's wrapped score "
        "function). The owner's code around the wrap (its forward(), a loss) ran once on "
        "the whole batch the wrap gathered, and an input replicated once per GPU "
        "(`t.unsqueeze(0).expand(n_gpus, -1, -1)`) handed every replica the whole batch's "
        "rows beside its own chunk. Under DDP each rank runs all of it on its own share: "
        "this line, which compares samples with each other (contrastive or NCE negatives, "
        "`torch.mm(a, b.t())`, cdist), compares within the rank's share only, and the loss "
        "and its gradients differ from the original's (round 10 v3-A: AMDIM's NCE). Where "
        "the whole batch matters, gather the outputs from every rank with "
        "torch.distributed.nn.functional.all_gather (which passes the gradients back) "
        "before the line; otherwise accept per-rank negatives and silence the warning with "
        "`# noqa: DP115`.",
    ),
    "DP116": (
        "a criterion of a class not known statically may compare the batch's rows",
        "An object called on the wrapped model's output is built from a class looked up by "
        "a name known only at run time (`getattr(losses, args.loss)()`, "
        "`losses.__dict__[name]()`, `LOSSES[name]()`), and one of the classes it may be "
        "compares the rows of its batch with each other in forward() (a contrastive or "
        "InfoNCE loss, a pairwise distance matrix). DataParallel gathered the model's "
        "outputs, and that loss saw the whole batch; under DDP each rank's sees its own "
        "share, so where the run builds that class its negatives are fewer and the loss and "
        "its gradients differ. dp2ddp cannot tell which class the run builds. Where it is "
        "one that compares rows, gather the outputs from every rank with "
        "torch.distributed.nn.functional.all_gather (which passes the gradients back) "
        "before the call; otherwise silence the warning with `# noqa: DP116`.",
    ),
    "DP117": (
        "a model called several times before one backward, and a backward through it "
        "with its parameters' gradients off: no static_graph",
        "The wrapped model may leave some parameters without a gradient and the program "
        "calls it two or more times before one backward, where dp2ddp would pass "
        "static_graph=True (DP096); but the program also runs a backward through the wrap "
        "inside `with ctx_noparamgrad(model):` (advertorch: an attack's perturb() that "
        "differentiates the loss by the input only). DDP with static_graph=True records "
        "that backward's use of the parameters, none, and does not average the gradients "
        "of the later steps: each rank steps with its own and the ranks drift apart from "
        "the first step with no error (nblt/Sub-AT@9f3bcd5, stop 62: verify found the "
        "ranks apart after step 1; measured under torchrun x2, torch 2.14). dp2ddp leaves "
        "static_graph out: the attack's backward and the step's run right; where a step "
        'leaves a parameter unused DDP raises at the next step ("Expected to have '
        'finished reduction"). Where that happens, run the attack on the bare model '
        "(`LinfPGDAttack(model.module, ...)`: its backward then needs no DDP) and pass "
        "static_graph=True; then silence the warning with `# noqa: DP117`.",
    ),
    "DP118": (
        "a tensor trained outside DistributedDataParallel, its sync not proved reached",
        "The optimizer trains a tensor no module holds (`scale = nn.Parameter(torch.ones(1))` "
        "handed to it beside the model's parameters, or in a parameter group of its own). "
        "DataParallel trained its one copy on the whole batch's gradient; DDP averages only "
        "the wrapped model's gradients, so under torchrun each rank's backward gives the "
        "tensor its own share's gradient and the ranks' copies drift apart. dp2ddp adds "
        "`ddp_sync_tensor(X)` after the statement that hands X to the optimizer (rank 0's "
        "values, its gradient averaged over the ranks as backward accumulates it), a "
        "collective every rank must reach; here that statement is under a condition or loop "
        "that may differ between ranks, after an early exit, or in a function not every rank "
        "calls, and nothing was added. Call `ddp_sync_tensor(X)` where every rank arrives "
        "(`from <helpers> import ddp_sync_tensor`), or make X an attribute of the wrapped "
        "model, then silence the warning with `# noqa: DP118`.",
    ),
    "DP119": (
        "a model handed to a function trains beside a wrap, not proved wrapped",
        "An optimizer in a function that wraps another model with DataParallel takes the "
        "parameters of one of the function's parameters (`def train(model, teacher): teacher "
        "= nn.DataParallel(teacher); opt = SGD(model.parameters())`), or a method of a class "
        "that wraps one takes those of a method's parameter or of the attribute it is "
        "stored on (`self.teacher = teacher` beside `self.student = "
        "nn.DataParallel(student)`), and what the callers hand that parameter is not "
        "read to the end: no call of the function in its module (for `__init__`, no "
        "construction of the class; it is called from another module), or a call hands it "
        "something that is neither a construction nor a wrap. "
        "Where every call of the module hands it a model it builds, dp2ddp adds "
        "`ddp_sync_module(X)` after the optimizer's statement itself; where every call hands "
        "it a wrapped model (or `model.module`), DDP averages it and nothing is said. Here "
        "neither is proved, and nothing was added: if the model is not inside a "
        "DistributedDataParallel wrap, the loader is sharded for the wrapped one and each "
        "rank trains its own copy on its share with no gradient averaging. Wrap it, or call "
        "`ddp_sync_module(X)` after the optimizer where every rank arrives (`from <helpers> "
        "import ddp_sync_module`), then silence the warning with `# noqa: DP119`.",
    ),
    "DP120": (
        "a term that sums no batch is scaled by WORLD_SIZE with a summed loss",
        "A loss every term of which is a sum is multiplied by WORLD_SIZE where it is "
        "backpropagated (`(loss * WORLD_SIZE).backward()`: DDP averages the ranks' "
        "gradients where DataParallel summed over the whole batch, DP004). This term sums "
        "no batch: it comes only from the model's parameters and constants (a weight "
        "penalty, `1e-5 * w.pow(2).sum()`), the same on every rank, so DDP's average of its "
        "gradient is DataParallel's already and the scale makes it WORLD_SIZE times "
        "DataParallel's. The scale was kept (the batch terms need it). Divide this term by "
        "`torch.distributed.get_world_size()` where the loss is built, then silence the "
        "warning with `# noqa: DP120`.",
    ),
    "DP121": (
        "a loss's reduction is a value, not proved a mean",
        "A torch loss is called (or built) with its reduction given by a value, not a "
        "literal: `F.cross_entropy(x, y, size_average=size_average)` in a loss function whose "
        "callers choose it (meetps/pytorch-semseg@801fb20 builds its loss with "
        "`functools.partial(cross_entropy2d, **config)`, and the shipped config says "
        "`size_average: False`), `nn.L1Loss(reduction=self.reduction)`, a `**kwargs` "
        "mapping. dp2ddp followed the value and could not prove it a mean on every path: it "
        "comes from a parameter's default whose callers are in another module or reach the "
        "function through a value (functools.partial, a table), from a setting read at run "
        "time, or one of its values is a sum. A summed loss (`reduction='sum'`, "
        "`size_average=False`) updates WORLD_SIZE times less under DDP, which averages the "
        "ranks' gradients, than under DataParallel, which summed the whole batch; nothing was "
        "scaled. Where it can be a sum, multiply the loss by "
        "`torch.distributed.get_world_size()` where it is backpropagated (or make it a mean "
        "in both programs), then silence the warning with `# noqa: DP121`.",
    ),
    "DP123": (
        "an output read at positions the code fixes, not the batch",
        "The training loop reads the wrapped model's output at a position computed from "
        "constants and the counters of fixed ranges (`for j in range(4): "
        "make_grid(prob[j * 16])`, head j's first attention map of a (heads x batch) "
        "output: soobinseo/Transformer-TTS@87bd9c9). DataParallel gathered the whole "
        "batch's outputs along dim 0, so those positions were rows of the global batch; "
        "under DDP each rank holds the outputs of its part only, and the same positions "
        "pick other rows, or run past them (IndexError on every rank). A position built "
        "from the loader's batch size is read per rank; this one names no size, so what it "
        "stands for is not proved and nothing was rewritten. Compute the position from the "
        "rows this rank holds (`prob.size(0)`), or gather the output from every rank first "
        "(`torch.distributed.all_gather`, where every rank arrives), then silence the "
        "warning with `# noqa: DP123`.",
    ),
    "DP124": (
        "the batch's rows paired with each other before the model",
        "Between the loader and a call of the wrapped model, the training loop computes the "
        "model's input with an operation that pairs the rows of the batch with each other "
        "(`torch.cdist` of the batch with another batch or itself, a product of the batch "
        "with a transposed batch, an n x n comparison by broadcasting; an optimal-transport "
        "pairing of noise and data rows, `cost.argmin(0)` over a cdist: "
        "atong01/conditional-flow-matching@cacd4dc, stop 50). DataParallel ran that loop "
        "on the whole batch and scattered the result; under DDP each rank runs it on its "
        "own share, so each row is paired only among this rank's rows and the model's "
        "input is not this rank's share of what DataParallel fed it. Nothing was "
        "rewritten. Where the pairing must span the whole batch, gather the rows from every "
        "rank first (`torch.distributed.all_gather`, where every rank arrives), pair them "
        "there, and keep this rank's share; where pairing within a rank's share is what you "
        "want (a smaller batch per pairing), silence the warning with `# noqa: DP124`.",
    ),
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
