"""Qualified names dp2ddp matches, so aliases (`import torch.nn as nn`, `as DP`) are caught."""

from __future__ import annotations

from typing import Final

DATAPARALLEL: Final = frozenset(
    {
        "torch.nn.DataParallel",
        "torch.nn.parallel.DataParallel",
        "torch.nn.parallel.data_parallel.DataParallel",
    }
)
DATA_PARALLEL_FUNCTION: Final = frozenset(
    {"torch.nn.parallel.data_parallel", "torch.nn.parallel.data_parallel.data_parallel"}
)
DISTRIBUTED_DATA_PARALLEL: Final = frozenset(
    {
        "torch.nn.parallel.DistributedDataParallel",
        "torch.nn.parallel.distributed.DistributedDataParallel",
        "torch.nn.DistributedDataParallel",
    }
)
#: Functions of the synchronized-BatchNorm packages (vendored as sync_batchnorm/) that patch
#: a DataParallel model's replication; they assert `isinstance(model, DataParallel)`. Matched
#: by their last name: the package is the project's own copy, wherever it sits.
#: The name a migrated wrap calls DistributedDataParallel by (imported from torch.nn.parallel).
DDP_CLASS: Final = "DistributedDataParallel"
#: The call a wrap becomes where a toggle may have switched off every parameter before it
#: (templates/helpers/wrap_trainable.py.j2): DDP_CLASS's call, or a DdpFrozen holder.
WRAP_TRAINABLE: Final = "ddp_wrap_trainable"
#: The calls a migrated wrap is spelled by.
DDP_WRAPS: Final = frozenset({DDP_CLASS, WRAP_TRAINABLE})
REPLICATION_PATCHES: Final = frozenset({"patch_replication_callback"})
INIT_PROCESS_GROUP: Final = frozenset({"torch.distributed.init_process_group"})
DATALOADER: Final = frozenset(
    {"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"}
)
DISTRIBUTED_SAMPLER: Final = frozenset(
    {
        "torch.utils.data.DistributedSampler",
        "torch.utils.data.distributed.DistributedSampler",
    }
)
#: The DistributedSampler subclass the header defines for loaders not shuffled for certain
#: (templates/helpers/distributed_sampler.py.j2): sequential order in O(1) memory.
DDP_DISTRIBUTED_SAMPLER: Final = "DdpDistributedSampler"
#: Its method called as each pass begins (advance_epoch: the next epoch); verify's aligned
#: order calls it too.
DDP_SAMPLER_NEXT_PASS: Final = "next_pass"
#: The keyword a factory of training and evaluation loaders gets (data/factory_sites.py):
#: a call passing False builds its loader whole.
SHARD_FLAG: Final = "ddp_shard"
#: The helper giving this rank its part of a batch (batches/loops.py writes it).
SHARD_BATCH: Final = "ddp_shard_batch"

#: Names the inserted setup binds at module level (a script binding them gets DP014).
SETUP_NAMES: Final = frozenset({"LOCAL_RANK", "RANK", "WORLD_SIZE", "DEVICE", "DEVICE_IDS"})
#: The function that marks a module as already migrated by dp2ddp.
SETUP_FUNCTION: Final = "ddp_setup"

#: Tensor methods that fill a tensor in place from the global generator (`w.normal_()`):
#: no qualified name shows them as draws.
INPLACE_RANDOM_FILLS: Final = frozenset(
    {"normal_", "uniform_", "bernoulli_", "random_", "exponential_", "geometric_", "cauchy_",
     "log_normal_"}
)  # fmt: skip

#: torch.nn.init's fillers that draw (constant_, zeros_, eye_, dirac_ do not): one home
#: for the weight-draw facts (analysis/weight_draws.py) and the re-initialising helpers
#: (analysis/reinit.py).
INIT_DRAWS: Final = frozenset(
    "uniform_ normal_ trunc_normal_ xavier_uniform_ xavier_normal_ kaiming_uniform_ "
    "kaiming_normal_ orthogonal_ sparse_".split()
)

#: How the hazards pass's record of a summed loss multiplied by WORLD_SIZE starts (the CLI's
#: note reads it; the batches pass takes the scaling back where a batch is not proved split).
SCALED_LOSS: Final = "scaled the summed loss"
#: Calls that show their arguments to the user: print and friends (DP030). One home for the
#: data pass's own-module view (data/evaluation.py) and the program's printing functions
#: (rank_zero/program_hints.py), which had two copies of it (one lacked tqdm.auto's write).
PRINTS: Final = frozenset(
    {"builtins.print", "sys.stdout.write", "sys.stderr.write", "pprint.pprint"}
    | {f"logging.{name}" for name in ("debug", "info", "warning", "error", "critical", "log")}
    | {"tqdm.tqdm.write", "tqdm.auto.tqdm.write"}
    # an experiment tracker shows its figures too (Proxy-Anchor-CVPR2020's epoch loss)
    | {"wandb.log", "mlflow.log_metric", "mlflow.log_metrics"}
    # a table of figures written as text (ssast's result.csv of its meters' averages)
    | {"numpy.savetxt"}
)
#: Methods that write their arguments out: a file's `write`, a csv writer's rows.
WRITE_METHODS: Final = frozenset({"write", "writerow", "writerows"})
#: Methods that show their arguments whatever their receiver: tqdm bars, loggers, and
#: TensorBoard writers (`writer.add_scalar(tag, total / n, step)`; tensorboard_logger's
#: `log_value`): a running figure handed to one is shown as by print (DP030), in the data
#: pass's own-module view and in the program's printing functions (analysis/printing.py).
SHOW_METHODS: Final = frozenset(
    {"set_postfix", "set_postfix_str", "set_description", "info", "debug", "warning"}
    | {"add_scalar", "add_scalars", "log_value"}
)


#: torch's checkpoint writer: rank 0's (rank_zero), and a figure in its path or its object
#: is shown as a print is (data/showing.py: a checkpoint named by this rank's mean loss).
TORCH_SAVE: Final = frozenset({"torch.save", "torch.serialization.save"})
