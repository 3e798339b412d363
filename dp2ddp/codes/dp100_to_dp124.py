"""The texts of codes DP100 to DP124 (dp2ddp.codes merges them into CODES; DP125 on
in dp125_to_dp149.py, split at its 700 lines: tests/test_layers.py).

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
        "a layer of the wrapped model replaced or cast after the wrap, not wrapped again",
        "An assignment through the wrapped model's `.module` replaces one of its layers "
        "after the wrap (`cnn.module.fc = nn.Sequential()` to take a backbone's features, "
        "fartashf/vsepp@abe382f, its wrap made in a helper that returns it), or sets it to "
        "None. DataParallel replicated the module as it was at each forward, so the change "
        "took effect; DDP built its gradient reducer over the parameters the module held "
        "at the wrap: the replaced layer's parameters get no gradient and DDP raises "
        '"Expected to have finished reduction in the prior iteration" at the second step '
        "on every rank, and a new layer's parameters are drawn and trained by each rank on "
        "its own. The same for a cast of its parameters after the wrap (`model = "
        "model.half()`, `model.double()`; NVIDIA/flownet2-pytorch@bce69c8's fp16 path): DDP "
        "made its gradient buckets for the dtype they had at the wrap and leaves them "
        "unreduced after the cast, each rank stepping on its own gradients (a cast chained "
        "on the wrap itself, `DataParallel(m).half()`, is moved onto the module). Where it "
        "is proved safe dp2ddp wraps the module again right after the "
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
        "a model called several times before one backward, and a differentiation "
        "through it other than the step's backward: find_unused_parameters, not "
        "static_graph",
        "The wrapped model may leave some parameters without a gradient and the program "
        "calls it two or more times before one backward, where dp2ddp would pass "
        "static_graph=True (DP096); but the program also differentiates through the wrap "
        "other than by the step's backward: a backward inside `with "
        "ctx_noparamgrad(model):` (advertorch: an attack's perturb() that differentiates "
        "the loss by the input only), or a `torch.autograd.grad(...)` call in a function "
        "that calls the wrap or is handed it (TRADES' attack by the input, an FGSM "
        "step, a gradient by the parameters). DDP with static_graph=True then "
        "does not average the gradients of the later steps: each rank steps with its own "
        "and the ranks drift apart from the first step with no error (nblt/Sub-AT@9f3bcd5, "
        "stop 62, and yaircarmon/semisup-adv@3f05b28, stop 63: verify found the ranks "
        "apart after step 1; measured under torchrun x2, torch 2.14, for autograd.grad by "
        "the input and by the parameters). dp2ddp passes find_unused_parameters=True "
        "instead: the extra differentiation and the step's backward run right, with the "
        "original's figures, where every call of the model reaches the same parameters "
        "(measured, stop 63: also beside a layer no call uses, where DDP without a flag "
        'raises "Expected to have finished reduction" at the next step). Where an earlier '
        "call reaches a parameter the last call does not (an encode-only pass), DDP raises "
        '"marked as ready twice" at the first backward: there run the attack on the bare '
        "model (`LinfPGDAttack(model.module, ...)`, `torch.autograd.grad` through "
        "`model.module`: it then needs no DDP) and pass static_graph=True. A "
        "`torch.autograd.grad(..., create_graph=True)` (a gradient penalty) is "
        "gradient_penalty.py's: rerouted through `model.module`, or DP023. Silence the "
        "warning with `# noqa: DP117` once the run is checked.",
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
}
