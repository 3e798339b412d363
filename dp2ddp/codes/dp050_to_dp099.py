"""The texts of codes DP050 to DP064 (dp2ddp.codes merges them into CODES; DP065 to DP099
in dp065_to_dp099.py, split at its 700 lines: tests/test_layers.py).

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
        "`bce(real - torch.mean(fake), ones)`, an averaging loss's value: "
        "`torch.log10(F.mse_loss(p, y))`, an RMSE's `torch.sqrt(criterion(p, y))`) goes "
        "through a non-linear function (a log, a root, an entropy helper, a loss) before the "
        "loss. DataParallel gathered the model's outputs and "
        "computed it over the whole batch; under DDP each rank computes it over its own "
        "share, so the loss is a different function of the samples and `dp2ddp verify` "
        "reports NOT EQUIVALENT. A plain mean of per-sample losses is not affected (DDP "
        "averages the gradients of equal shares). Where the whole batch's statistic "
        "matters, gather the outputs from every rank first "
        "(torch.distributed.nn.functional.all_gather passes the gradients back), or accept "
        "the per-rank statistic. So too a statistic over the batch's rows (a mean, a std) "
        "that offsets or scales the per-sample terms of a mean or a sum in the loss: a "
        "REINFORCE baseline `((cost - cost.mean()) * log_p).mean()`, a moving average of it "
        "kept across steps (`self.v = beta * self.v + (1 - beta) * cost.mean()`), an "
        "advantage standardisation `(r - r.mean()) / r.std()`; DDP's gradient averaging "
        "does not make each rank's own statistic the whole batch's. Detached, the whole "
        "batch's is the all-reduced sum over the all-reduced count "
        "(torch.distributed.all_reduce).",
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
    "DP063": (
        "the wrapped model's state written from its output",
        "A value computed from the wrapped model's output is written back into that "
        "model's own state: a buffer or an attribute reached through the wrapped name "
        "(`self.net.module.emau.mu += mu * (1 - momentum)` after `loss, mu = "
        "self.net(image, label)` and `mu = mu.mean(dim=0)`, XiaLiPKU/EMANet@f09ffac, the "
        "moving average of its attention bases), by an assignment or an in-place method "
        "(`copy_`, `mul_`, `add_`). DataParallel gathered its replicas' outputs: the value "
        "was the whole batch's, one update of the one copy. Under DDP each rank's output is "
        "its own share's, each rank writes its own value, and at the next forward DDP "
        "copies rank 0's buffers over every rank's: the update is rank 0's share's alone. "
        "Average the value over the ranks before the write (`dist.all_reduce(v)`, then `v "
        "/= world_size`: the mean of the equal shares' means is the batch's mean), or "
        "gather the rows (`all_gather`) where the update needs every sample.",
    ),
    "DP064": (
        "a loss object cuts the model's output by the global batch size it holds",
        "An object called on the wrapped model's output (a loss module) cuts that input's "
        "rows in its forward() at a position counted by a batch size it keeps from its "
        "constructor (`student_output[-self.args.batch_size:]`, `self.args = args`), and "
        "the program built it with the loader's global batch size (`DinoLoss(args)` beside "
        "`DataLoader(..., batch_size=args.batch_size)`). DataParallel gathered the whole "
        "batch's output, so the position fell where the program meant (the mixup views "
        "behind the crops); under DDP each rank's output holds ddp_per_rank_batch(B) rows "
        "per batch, and the cut takes other rows: a shape mismatch at the first step, or "
        "other samples in silence. dp2ddp reads a size per rank where the loop itself "
        "indexes the output; inside the class, which its module migrates without the "
        "loader, it is not rewritten. Count the position over the output the object is "
        "handed (`x.size(0) // n_views`), or hand it ddp_per_rank_batch(B) at construction "
        "where it only ever sees a sharded loader's batches.",
    ),
}
