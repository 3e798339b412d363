"""The texts of codes DP150 on (dp2ddp.codes merges them into CODES).

One dict literal per file, so that a repeated key stays visible (tests/test_docs.py)."""

from __future__ import annotations

from typing import Final

#: code -> (short title, what the user should do)
NEWEST: Final[dict[str, tuple[str, str]]] = {
    "DP151": (
        "a batch padded to this rank's longest item: the model's use of the padding unproved",
        "A training loader's collate_fn (the program's own function or class) pads each "
        "batch to a length the batch decides (`pad_sequence`, a tensor as long as the "
        "batch's longest item, a padding helper handed that length). DataParallel collated "
        "the whole batch once and scattered it: every GPU's chunk kept the whole batch's "
        "length. Under DDP each rank collates only its share and pads it to the share's own "
        "longest item, so a rank's batch is shorter (or as long) and its padded positions are "
        "others. The loop hands the model the padded batch with a mask or lengths beside it "
        "(else DP127 says it at the call), but dp2ddp does not prove the model keeps every "
        "padded position out of what it computes at the real ones: a convolution or a "
        "recurrent layer running over the padding, a normalisation or a mean over the time "
        "dimension, a shape read from the batch (`x.size(1)`) compute differently on the "
        "shorter batch. Where the model masks every such use (or the items are of one "
        "length), the training is DataParallel's; otherwise pad to a fixed length in the "
        "collate (the longest item of the dataset), or make the loader collate the global "
        "batch and cut this rank's part after the collate; then silence the warning with "
        "`# noqa: DP151`.",
    ),
    "DP152": (
        "a loss handed to a call dp2ddp does not read: the loop taken for training",
        "A loop (often one whose body holds a `with torch.no_grad():` block: an EMA update, a "
        "metric) hands the loss (the wrapped model's output with gradients on, not detached) to"
        " a call made for what it does (its result unused) whose code dp2ddp does not read: a "
        "library's (`trainer_step(loss, opt)` of a module not installed, an `accelerate`-like "
        "helper) or another program module's function with no backward dp2ddp can see; it sees "
        "no optimizer handed along that was built by a `torch.optim` class or cleared with "
        "`zero_grad()` in the loop's function. After a `.eval()` before the loop (dropout "
        "off for a fine-tuning), only a method of an object built given the wrapped model or "
        "its parameters counts (`engine = Engine(model, lr)`, then `engine.step(loss)`): a "
        "writer, a meter or a scheduler is given no model, and its loop stays an evaluation. "
        "The loop runs no backward and no optimizer step "
        "of its own. A forward with gradients on whose loss is handed on may be a training "
        "step's; neither a nested `no_grad()` block nor the library calls around it prove an "
        "evaluation: the loop is taken for training, its loader sharded (each rank trains its "
        "share, DDP averages the gradients in the backward the call runs). If the call does not"
        " run the backward pass (it logs or stores the loss), the loop is an evaluation and its"
        " figures are this rank's share: run its forward under `torch.no_grad()` or build its "
        "loader with `shuffle=False` and leave it whole. Then silence the warning with `# noqa:"
        " DP152`.",
    ),
    "DP153": (
        "a batch's size compared with 1 where not every rank is proved to reach it",
        "The loop over a sharded loader compares the size of its batch with 1 (`if "
        "x.shape[0] == 1: continue`: a batch of one sample skipped, often for BatchNorm; "
        "marian42/shapegan@090a6a8). DataParallel compared the whole batch's size; each "
        "rank now holds its share, so the comparison would fall on other steps, or on one "
        "rank only where the shares differ (that rank skips the step, the others wait in "
        "the gradient all-reduce). Where the comparison is the whole test of an `if` every "
        "rank reaches at every step, dp2ddp reads the size summed over the ranks "
        "(`ddp_global_count(x.shape[0]) == 1`, one all-reduce per step: DataParallel's "
        "decision on every rank). Here the comparison is inside a larger condition, or a "
        "`continue`, `break`, `return` or `raise` comes before it in the loop's body, so "
        "not every rank is proved to reach it, and a collective there could wait forever. "
        "Compare the global size where every rank reaches it (`n = ddp_global_count("
        "x.shape[0])` as the loop's first statement, from the generated helpers module), or "
        "skip on a condition every rank computes alike; then silence the warning with "
        "`# noqa: DP153`.",
    ),
    "DP154": (
        "a library function named as a writer, handed the model, whose value is used",
        "A call of a library function whose name says it writes (`save*`, `dump*`, "
        "`write*`: `save_model`, `save_checkpoint`) is handed the wrapped model, its "
        "`.module` or a `state_dict()`, and dp2ddp does not read the library's code. As a "
        "statement of its own such a call goes to rank 0, as torch.save does; here its value "
        "is used (assigned, an argument, a condition), so it runs on every rank and each "
        "rank may write the same checkpoint, racing for one file. Put the call under `if "
        "ddp_is_main():` and hand the other ranks what they need (a `ddp_barrier()` before "
        "any rank reads the file), or, if the function writes nothing, silence the warning "
        "with `# noqa: DP154`.",
    ),
    "DP156": (
        "a size derived from the global batch size handed beside this rank's rows",
        "The data pass reads a loader's batch_size per rank (`batch_size=ddp_per_rank_batch("
        "B)`), so each rank's batch holds B / WORLD_SIZE samples. A call hands a function of "
        "the program that sizes a tensor by one of its parameters (`torch.full((n,), t)`) a "
        "value derived from B by arithmetic (`B + 1`, `B - 1`, `max(B, 2)`) beside a part of "
        "that batch. Under DataParallel the batch held all B samples, so the two agreed as the "
        "program wrote them. Where the size is B, a multiple of it (`B * 2`) or a part of it "
        "(`B // 2`), dp2ddp reads B per rank (`ddp_per_rank_batch(B) // 2`: the same part of "
        'the rank\'s share); other arithmetic does not keep the meaning "rows of this batch" '
        "provably, so the call was left as written and still hands a size of the global "
        "batch beside the rank's rows: a mismatch of sizes fails there, or the function pairs "
        "rows that are not this rank's. Read the function: where the size counts this rank's "
        "rows, write it from `ddp_per_rank_batch(B)` (from the generated helpers module) or "
        "from the rows' own size (`x.size(0) + 1`); then silence the warning with `# noqa: "
        "DP156`.",
    ),
    "DP158": (
        "a set's iteration order taken where dp2ddp cannot make it rank 0's",
        "A set (or frozenset) is iterated into something ordered (`enumerate(labels)`, "
        "`list(words)`, a comprehension over it: class ids, a vocabulary). A set iterates "
        "in hash order, and Python randomizes the hash of strings and bytes per process "
        "(PYTHONHASHSEED; torchrun sets none): DataParallel's one process numbered the "
        "elements one way, each torchrun rank may number them its own way, and the ranks then "
        "train one model on different numberings. Where the elements are proved strings and "
        "every rank takes the order alike, dp2ddp makes it rank 0's "
        "(`ddp_rank0_order(labels)`); here the elements are not proved numbers or strings, "
        "or the ranks may not take the order as often (under a condition that differs "
        "between ranks, per sample, in a function not proved called alike), so nothing was "
        "changed. An order handed straight to `sorted()` without a key "
        "(`sorted(list(set(text)))`) is one order on every rank and is not said; the "
        "characters of a file read in text mode (`f.read()` of `open(p)`) are strings. "
        "If the elements are strings, bytes or tuples of them, take one "
        "order on every rank: `sorted(labels)` (a new numbering), or rank 0's order "
        "(`ddp_rank0_order(labels)`, a helper of the migrated program's, where every rank "
        "takes it as often), or set "
        "PYTHONHASHSEED for the launch. Then silence the warning with `# noqa: DP158`.",
    ),
    "DP163": (
        "a loader whose batches are only collected: left unsharded",
        "Every loop over this loader runs no model, backpropagates nowhere and calls no "
        "function of the program: it collects the batches (`rows.append(x)`), as a program "
        "does to build something of the whole set (a whitening or normalization fit, a mean, "
        "a feature bank) before training. Sharded as training data, each rank would build it "
        "from its share and the ranks would go on with different statistics, where "
        "DataParallel's one process had the whole set's. The loader was left unsharded: every "
        "rank goes through all of it, as the original did, and builds the original's "
        "statistic. If the collected batches are trained on later (a list of batches iterated "
        "by the training loop), every rank now trains on all of them: shard that loop's data "
        "(a DistributedSampler on this loader, and read the collected list per rank) for the "
        "speed-up. Then silence the warning with `# noqa: DP163`.",
    ),
    "DP167": (
        "an order taken of another module's value that may be a set of strings",
        "A value another module's function or method returns is iterated into something "
        "ordered (`enumerate(label_list)`, a comprehension over it, a `for` loop that numbers "
        "or orders by it). On some of its paths that function returns a set of strings (one "
        "it builds from strings); on another it returns a value dp2ddp cannot type (a library "
        "call's: `labels = pickle.load(f)` of a file an earlier run saved, which is a set "
        "again where that run saved one). A set of strings iterates in hash order, and Python "
        "randomizes the hash of strings per process (PYTHONHASHSEED; torchrun sets none): "
        "DataParallel's one process numbered the elements one way, each torchrun rank may "
        "number them its own way, and the ranks then train one model on different "
        "numberings. Where every path is proved a set of strings, dp2ddp makes the order rank "
        "0's (`ddp_rank0_order(...)`); here nothing was changed. If the value may be a set, "
        "give it one order in every process: sort it where it is built or where it is "
        "iterated (`sorted(labels)`; the numbering then differs from a run of the original, "
        "so a checkpoint or label file of an earlier run must be renumbered alike), or set "
        "PYTHONHASHSEED for the launch (`PYTHONHASHSEED=0 torchrun ...`). Then silence the "
        "warning with `# noqa: DP167`.",
    ),
    "DP174": (
        "a hyperparameter search runs on every rank: the ranks' trials may differ",
        "The program starts a hyperparameter search (an optuna study, hyperopt's fmin, "
        "scikit-optimize's minimizers, ray tune) on every rank: torchrun runs the whole "
        "program in each process, so each rank runs a study of its own. An unseeded sampler "
        "draws other trial values on each rank, and a storage the ranks share (optuna's "
        '`storage="sqlite:///..."`) records every rank\'s trials in one study, so its best '
        "trial and its next draws mix the ranks' runs. Where a trial's values shape the model "
        '(`trial.suggest_int("n_layers", 2, 5)`) the ranks build different models and '
        'DistributedDataParallel fails at the wrap ("DDP expects same model across all '
        'ranks"); where they set a learning rate or a weight decay, DDP averages the '
        "gradients of differently configured runs. DataParallel's one process ran one "
        "study. dp2ddp changed nothing here. Make every rank run the same trials: give the "
        "sampler a fixed seed and keep each rank's study in memory (`optuna.create_study("
        "sampler=optuna.samplers.TPESampler(seed=0))` with no `storage=`; hyperopt's "
        "`rstate=np.random.default_rng(0)`, scikit-optimize's `random_state=0`), which works "
        "where the objective returns the same value on every rank (a figure every rank "
        "computes over the whole validation set); with a shared storage, create and "
        "optimize the study on rank 0 alone and hand each trial's values to the other ranks "
        "(optuna's `TorchDistributedTrial`). Then silence the warning with `# noqa: DP174`.",
    ),
    "DP178": (
        "an order taken of a set of strings returned through more modules than dp2ddp follows",
        "A value another module's function or method returns is iterated into something "
        "ordered (`enumerate(label_list)`, a comprehension over it, a `for` loop that numbers "
        "or orders by it). That function returns what a function of a further module "
        "returns, and so on through more of the program's modules than dp2ddp follows (3), "
        "ending in a set of strings. A set of strings iterates in hash order, and Python "
        "randomizes the hash of strings per process (PYTHONHASHSEED; torchrun sets none): "
        "DataParallel's one process numbered the elements one way, each torchrun rank may "
        "number them its own way, and the ranks then train one model on different "
        "numberings. Through fewer modules dp2ddp makes the order rank 0's "
        "(`ddp_rank0_order(...)`); here nothing was changed. Give the set one order in every "
        "process: sort it where it is built or where it is iterated (`sorted(labels)`; the "
        "numbering then differs from a run of the original, so a checkpoint or label file "
        "of an earlier run must be renumbered alike), or set PYTHONHASHSEED for the launch "
        "(`PYTHONHASHSEED=0 torchrun ...`). Then silence the warning with `# noqa: DP178`.",
    ),
    "DP181": (
        "a model given an object DataParallel does not split: every rank computes the whole step",
        "A wrapped model is called with an object DataParallel's scatter does not split "
        "(not a tensor, tuple, list or dict: a graph library's `Data` holding a whole graph, "
        "an object of the program's own class); DataParallel handed every replica the whole "
        "object, so the original computed the whole batch on one GPU, its update the whole "
        "batch's. dp2ddp left the call, its output and the targets compared with it whole "
        "(splitting the targets as a batch would mismatch the output's size on every rank): "
        "every rank computes the same full step and DDP averages equal gradients, the "
        "original's update, with no speed-up and the whole batch's memory on every rank. "
        "To train on a part per rank, split the object yourself (each rank its share of "
        "the nodes or samples, a loss over that share: for a graph, a neighbour-sampling "
        "loader with a DistributedSampler), then silence the warning with `# noqa: DP181`.",
    ),
    "DP184": (
        "a global batch of an odd number of samples: no even WORLD_SIZE divides it",
        "DataParallel's batch size is the global batch, and dp2ddp keeps that meaning by "
        "loading `ddp_per_rank_batch(B)` (B // WORLD_SIZE) on each rank. The batch size of a "
        "loader that trains is proved to be an odd number above 1 (a literal, a constant "
        "every binding reads, or an argparse default the program reads: then only unless the "
        "command line gives "
        "another; dragen1860/LearningToCompare-Pytorch@be5fbbe's `batchsz = 3`, stop 55 "
        "r4-A). DataParallel scattered all B samples of a step over its GPUs (3 as 2+1 on "
        "two); no even WORLD_SIZE (2, 4, 8 GPUs) divides an odd B, so each rank loads "
        "B // WORLD_SIZE, the global batch is WORLD_SIZE * (B // WORLD_SIZE) (2 for 3 on two "
        "processes), an epoch takes more steps (a schedule stepped per epoch or per step "
        "moves otherwise), and the update is the mean over fewer samples. dp2ddp does not "
        "give the ranks DataParallel's uneven shares (2 and 1): DDP averages the ranks' "
        "gradients with equal weights, so such shares would weigh the samples 1/4, 1/4, "
        "1/2 where DataParallel's mean weighed each 1/3 (equal again only with each rank's "
        "loss scaled by WORLD_SIZE * its share / B, right for a loss that is a mean over the "
        "batch alone). An even B that 4 or 8 do not divide is not said here: it divides on "
        "2 processes, and `ddp_per_rank_batch` warns at run time where WORLD_SIZE does not "
        "divide it. Choose a batch size WORLD_SIZE divides (the learning rate scaled as you "
        "judge), or launch a WORLD_SIZE that divides B; then silence the warning with "
        "`# noqa: DP184`.",
    ),
    "DP188": (
        "DataParallel given a tensor, not a module: the wrap dropped",
        "`DataParallel(x)` where every binding of `x` in its scope is a call returning a "
        "tensor (`x = F.mse_loss(...)`, `torch.stack(...)`), often a loss wrapped under `if "
        "device.type == 'cuda'`. DataParallel keeps any value as `.module` and fails only when "
        "the wrapper is called or a tensor method is read from it (`.backward()`: the "
        "original's path through that line cannot have run), while DistributedDataParallel "
        "refuses a value without parameters at once; and dp2ddp drops device guards around a "
        "wrap (DDP always wraps), which would stop every rank at that line on the CPU path "
        "too. dp2ddp left the tensor unwrapped: the name holds the tensor on every path. Wrap "
        "the model that computes it instead if a module was meant, or drop the wrap, then "
        "silence the warning with `# noqa: DP188`.",
    ),
    "DP189": (
        "this rank's share of a sampled batch handed to a method that writes per sample",
        "A batch sampled as several parts at once (`states, actions, ..., indices, weights = "
        "memory.sample(n)`) outside the training loop is split after that statement, all "
        "its parts together, each rank keeping its share of the samples, as DataParallel's "
        "scatter gave each GPU its rows. One of those parts is then handed to a method of "
        "the program's own objects (`memory.update_priorities(indices, priorities)`): each "
        "rank hands it only its share, with values computed from its share. Where that "
        "method writes per sample into state every rank holds a copy of (a prioritized "
        "replay memory's priorities, a per-sample table), each copy gets only its own "
        "rank's writes, where DataParallel's one process wrote every sample's: the copies "
        "drift apart, and what is drawn from them (a weighted sample) no longer agrees "
        "between the ranks. Gather both to every rank before the call (`torch.distributed."
        "all_gather` of the indices and the values, then the call with the whole batch's), "
        "or keep the state on rank 0 and broadcast it; then silence the warning with "
        "`# noqa: DP189`.",
    ),
    "DP190": (
        "a layer-running method of the model's own class called on its wrap, not through "
        "the wrap's forward",
        "The original wrapped the model only under a device guard (`if torch.cuda."
        "device_count() > 1:`) and calls a method of the model's own class on it "
        "(`model.embed(x)`); DataParallel has no such method, so the original ran that line "
        "only unwrapped, on one device or none. dp2ddp removes the guard (every process "
        "wraps, on CPU too), so the call meets the DistributedDataParallel object: "
        "AttributeError. A method proved to run none of the model's layers "
        "(`model.set_return_features(True)`) is called on `model.module` instead, as the "
        "original's unwrapped model answered it; this one runs layers, and through "
        "`model.module` they would run past DDP's forward, whose hooks average their "
        "gradients over the ranks. Call it through the wrapper's forward (a `mode=` "
        "argument of forward()), or on `model.module` where no gradient of it is used "
        "(under `torch.no_grad()`), then silence the warning with `# noqa: DP190`. "
        "The same call on a wrap by the program's own forwarding DataParallel subclass "
        "(one whose `__getattr__` hands unknown attributes to the wrapped module, rebased on "
        "DDP by the migration), guarded or not, raises nothing: the wrapper hands "
        "`model.encode(x)` to the module, as DataParallel's did, which ran it on one device "
        "over the whole batch. Under DDP each rank runs it on its own share outside DDP's "
        "forward, whose hooks alone average the gradients over the ranks: each rank trains "
        "its own parameters and they drift apart, with no error (bpowell122/tomodrgn@"
        "e19eae9's `model.encode(...)`/`model.decode(...)` through its "
        "DataParallelPassthrough). Route the calls through one forward (a forward() that "
        "calls encode() and decode() and returns what the loss needs), then silence the "
        "warning.",
    ),
    "DP193": (
        "an experiment framework's run folder made on every rank",
        "`@hydra.main` starts a run in each process: it makes the run folder (by default "
        "`outputs/${now:%Y-%m-%d}/${now:%H-%M-%S}`, named from the clock), writes its `.hydra/` "
        "config copy and log there and, where the job changes directory (hydra before 1.2, "
        "or `hydra.job.chdir=True`), runs the program inside it. DataParallel's one process "
        "made one folder; under torchrun each rank reads its own clock, so ranks a second "
        "apart make two folders, and with a changed directory rank 0's files (checkpoints, "
        "caches) are not where rank 1 looks for them (stop 57: sooftware/kospeech's second "
        "run folder). Name the folder without the clock for a distributed run, on the "
        "command line (`torchrun ... train.py hydra.run.dir=outputs/run1`) or in the config, "
        "then silence the warning with `# noqa: DP193`.",
    ),
    "DP194": (
        "an experiment framework's run started on every rank",
        "A sacred `Experiment` runs its command in each process: every rank starts a run, "
        "its observers record one run per rank (a FileStorageObserver picks the next free "
        "id in its folder, so the ranks may take the same one) and its run log (`Running "
        "command`, `Started run with ID`, `Result`, `Completed after`) prints on every rank, "
        "where DataParallel's one process recorded and printed one run (stop 57: "
        "jeromerony/dml_cross_entropy). Add the observers on rank 0 only (`if "
        'int(os.environ.get("RANK", "0")) == 0: ex.observers.append(...)`) and quiet '
        "sacred's logger on the other ranks (`ex.logger`), then silence the warning with "
        "`# noqa: DP194`.",
    ),
    "DP197": (
        "a model wrapped and called in one expression",
        "`DataParallel(model)(x)` builds the wrapper and calls it at once, so each call "
        "builds a new one (stop 57, khy0809/fewshot-egnn's torchtools trainer). Migrated, "
        "each call builds a new DistributedDataParallel: every construction broadcasts rank "
        "0's weights and registers gradient hooks on the parameters once more, and the "
        "update is not DataParallel's (2 processes: its fixture's weights 1.9145 where the "
        "original trains to 2.0631). Wrap the model once where it is built, call that "
        "wrapper, then silence the warning with `# noqa: DP197`.",
    ),
    "DP200": (
        "a memory each rank fills or samples on its own while the program trains",
        "A container the program fills while it trains (`memory.push(state, action, "
        "reward, next_state, done)` after an environment's `step()`, `buffer.append(...)`) "
        "and samples training batches from (`memory.sample(n)`, `random.sample(memory, n)`, "
        "a draw over `len(memory)`): a reinforcement-learning replay memory. DataParallel's "
        "one process gathered one memory; under torchrun every rank runs the loop, steps "
        "its own environments (their clocks, their own unseeded draws, an epsilon-greedy "
        "`random.random()`) and fills its own memory, so the indices a rank samples pick "
        "other transitions on each rank and the update averages several actors' data, where "
        "the original learned from one. dp2ddp does not prove the filling alike on every "
        "rank. Where the migration runs the filling in `with ddp_same_random():` (its draws "
        "decide what the model trains on), every rank fills the memory alike with rank 0's "
        "draws and only the sampling is each rank's own, as the text then says. Gather the "
        "experience on one rank and broadcast the sampled batch (or give each rank's "
        "environment and draws the same seed and no clock, so every memory is the same), or "
        "keep the per-rank actors on purpose (more experience per step); then silence the "
        "warning with `# noqa: DP200`.",
    ),
    "DP216": (
        "a fixed batch run whole through a model with BatchNorm in train mode",
        "A batch fixed before the training loop (noise drawn once, `fixed_z`, a debug or "
        "sample batch) is run through the wrapped model in the loop while the model is in "
        "train mode and holds BatchNorm layers. dp2ddp leaves such a batch whole, so every "
        "rank computes all of its outputs, as DataParallel gathered them. But DataParallel "
        "scattered it first: each GPU's replica normalised its own chunk by the chunk's "
        "mean and variance (and replica 0's chunk moved the running statistics). Every "
        "rank now normalises the whole batch by the whole batch's statistics, so the "
        "outputs (a sample grid, a logged figure) and the running statistics differ from "
        "DataParallel's. Where the samples are meant to show the model as it evaluates, "
        "put it in eval mode around the call (`model.eval()` before it, `model.train()` "
        "after: the original's figures change too, to the ones that mean something); to "
        "keep DataParallel's per-chunk figures, cut the batch with `ddp_shard_batch` and "
        "gather the outputs. Then silence the warning with `# noqa: DP216`.",
    ),
    "DP217": (
        "the wrapped model's forward() couples the rows of its batch",
        "The wrapped model's forward() computes a statistic over the rows of the batch it "
        "is handed (a prototype or covariance over a few-shot episode's support rows, "
        "`feats.mean(0)`, a normalisation over dim 0 written by hand) or compares its rows "
        "with each other (`x @ x.t()`, cdist). DataParallel on several GPUs ran forward() "
        "on each GPU's chunk, so it computed that over the chunk's rows, as each DDP rank "
        "now does over its share: the migration keeps that. On one GPU or on CPU "
        "DataParallel ran it on the whole batch, so the original run there (and `dp2ddp "
        "verify` on CPU) computes a different function of the samples, and verify reports "
        "NOT EQUIVALENT naming this line. Where the whole batch's value is meant, gather "
        "the rows over the ranks inside forward() "
        "(torch.distributed.nn.functional.all_gather keeps the gradients); then silence "
        "the warning with `# noqa: DP217`.",
    ),
    "DP218": (
        "an optimizer trains a module a plain object holds, not proved built or wrapped",
        "The optimizer's parameters come through an object of a plain class of the module "
        "(no nn.Module: a holder such as an actor-critic's `Baseline`): a method of it "
        "(`baseline.get_learnable_parameters()` returning `self.critic.parameters()`), an "
        "attribute bound to parameters (`baseline.params`) or `baseline.critic."
        "parameters()`. DataParallel's one process trained that module on every whole "
        "batch; migrated, no DDP holds it, each rank steps it on its own share's gradient "
        "and the ranks' copies drift apart. Where every binding of the attribute is a "
        "construction that does not wrap, dp2ddp adds `ddp_sync_module(baseline.critic)` "
        "after the optimizer's statement itself (see DP068); where every one is a wrap, "
        "DDP averages it and nothing is said. Here neither is proved (the warning says "
        "why: a binding not read to a construction, wraps and constructions mixed, or "
        "parameters of a module no attribute of the object names), and nothing was added. "
        "Call `ddp_sync_module(X)` on that module after the optimizer where every rank "
        "arrives (`from <helpers> import ddp_sync_module`), or wrap it in "
        "DistributedDataParallel, then silence the warning with `# noqa: DP218`.",
    ),
    "DP219": (
        "a branch of the training step decided on a figure of this rank's own batch",
        "A Python `if` in the training loop tests a loss or an output of the model "
        "(`if loss < 0.5: k = 1.0 else: k = 0.0`, a loss-dependent weight, a curriculum "
        "switch, `if loss > limit: loss = loss * 0.1`) and its branch changes what is "
        "trained: it assigns a value the loss reads, or runs a backward. DataParallel "
        "decided once, on the whole batch's figure; under DDP each rank decides on its own "
        "share, the ranks may take different branches, and DDP averages the gradients of "
        "different objectives, a step the original never took (round 22: its fixture's "
        "weights -1.157388 under DataParallel, -1.190831 on 2 ranks). dp2ddp does not make "
        "the figure rank 0's: it is this rank's data. Decide on the whole batch's figure "
        "(all-reduce it first: `dist.all_reduce(x, op=dist.ReduceOp.AVG)` on a detached "
        "copy) or on something every rank computes alike; then silence the warning with "
        "`# noqa: DP219`.",
    ),
    "DP221": (
        "a loss sums what a wrapped model of a class not read returns",
        "The loss that reaches backward() sums the output of a wrapped model (`loss = "
        "model(x, y).sum()`, `out[:, 0].sum()`, through indexing and shape-keeping methods "
        "only) whose class dp2ddp could not read: a library's (`torchvision`, `timm`, a "
        "package outside the migrated folder), or built by a call it cannot follow. "
        "DataParallel gathered one value per GPU, so what that sum means depends on "
        "forward(): per-row values (the sum is over the batch: DDP averages the ranks, so "
        "dp2ddp scales it by WORLD_SIZE, DataParallel's update) or each replica's loss "
        "already averaged over its rows (a loss computed inside forward(): the sum is over "
        "replicas, the ranks' average is DataParallel's one-device loss, and the scaling "
        "makes every update WORLD_SIZE times the original's). The warning says which was "
        "done. Check the class's forward(): where it returns a mean per replica, remove "
        "`* WORLD_SIZE` (or, where left unscaled beside other terms, keep it so); migrate "
        "the class's module with the program (a folder) so dp2ddp reads it; then silence "
        "the warning with `# noqa: DP221`.",
    ),
    "DP223": (
        "the wrapped module trains itself through .module.<method>(): DDP's forward never "
        "runs, its gradients are not synced",
        "The wrapped model is a trainer: an nn.Module that owns its nets and their "
        "optimizers and trains itself in a method, called through the wrap's module "
        "(`trainer = DataParallel(Trainer()); trainer.module.fit(loader)`). DataParallel's "
        "forward never ran, so the original trained on one device over each whole batch. "
        "Under DDP the same call skips the wrapper, whose forward arms the averaging of the "
        "gradients: each rank steps on its own shard's gradient and the ranks drift apart, "
        "with no error. Where the class is the program's, dp2ddp adds "
        "`ddp_sync_module(self.net)` after each of its optimizers over its nets (rank 0's "
        "values, every gradient averaged over the ranks), in whichever module defines it. "
        "Here the class is not the program's (an installed package's), so nothing could be "
        "placed in it. Call `ddp_sync_module(trainer.module.net)` for each net it trains "
        "after building it, where every rank arrives (`from <helpers> import "
        "ddp_sync_module`), or train through the wrapper's forward, then silence the "
        "warning with `# noqa: DP223`.",
    ),
    "DP224": (
        "a file opened to write and read ('w+', 'a+') left on every rank",
        "`open(path, 'a+')` (or 'w+') outside a rank-0 block whose handle the program reads "
        "back, or hands to code dp2ddp does not follow (a library object, another module's "
        "function): on rank 0 alone, the other ranks' reads would fail, so the open stays on "
        "every rank, and every rank writes the one file (each line WORLD_SIZE times, or the "
        "file truncated under another rank's writes). A handle only written, flushed or "
        "closed, in its scope or through a class of the module that keeps it and only "
        "writes it (a tee of stderr), is opened on rank 0 and elsewhere on a scratch file, "
        "as for 'a'. Open the file on rank 0 only where the others do not read it (`path if "
        "ddp_is_main() else os.devnull`), or one file per rank; then silence the warning "
        "with `# noqa: DP224`. Marked in the migrated file: `--check` fails until then.",
    ),
    "DP225": (
        "the wrap a function returns is dropped: the model trains unwrapped",
        "A function of the program wraps the model it is given and returns the wrapper "
        "(`def init_net(net): net = DataParallel(net); ...; return net`), and a call's "
        "result is thrown away (`init_net(net)` as a statement): the program goes on with "
        "the bare module. DataParallel never ran, so the original trained on one device "
        "over each whole batch. Under DDP the wrapper the call now builds is thrown away "
        "too: each rank trains the bare module on its own shard, its gradients never "
        "averaged, and the ranks drift apart with no error. Keep the result (`net = "
        "init_net(net)`) and call it, or, where one device was meant, leave the loaders "
        "whole; then silence the warning with `# noqa: DP225`.",
    ),
}
