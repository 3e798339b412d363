"""A run directory named by another module's helpers (issue 29): each rank read the clock
(and drew a uuid) in naming.py on its own; the call that names the shared path is read as
rank 0's value here, where the path is made and read."""
import atexit
import os
import warnings

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

import naming
from naming import run_name

# --- dp2ddp: DistributedDataParallel setup. Launch with: torchrun --nproc_per_node=N train.py
LOCAL_RANK = int(os.environ.get("LOCAL_RANK", "0"))
RANK = int(os.environ.get("RANK", "0"))
WORLD_SIZE = int(os.environ.get("WORLD_SIZE", "1"))
DEVICE = torch.device("cuda", LOCAL_RANK) if torch.cuda.is_available() else torch.device("cpu")
DEVICE_IDS = [LOCAL_RANK] if torch.cuda.is_available() else None


def ddp_setup():
    """Join torchrun's process group (NCCL on GPUs, gloo on CPU); plain python: a world of one."""
    if dist.is_initialized():
        return
    backend = "nccl" if torch.cuda.is_available() else "gloo"
    if torch.cuda.is_available():
        torch.cuda.set_device(LOCAL_RANK)
    if "MASTER_ADDR" in os.environ:
        dist.init_process_group(backend=backend)
    else:
        dist.init_process_group(backend=backend, store=dist.HashStore(), rank=0, world_size=1)
    atexit.register(ddp_cleanup)


def ddp_cleanup():
    """Leave the process group at exit, also when training raised."""
    if dist.is_initialized():
        dist.destroy_process_group()


def ddp_is_main():
    """Rank 0 prints, logs and saves for everyone."""
    return RANK == 0


def ddp_barrier():
    """Wait until rank 0 has written its checkpoint before another rank reads it."""
    if dist.is_initialized():
        dist.barrier()


def ddp_rank0_value(read, /, *args, **kwargs):
    """`read(*args, **kwargs)` on every rank, and rank 0's value on every rank.

    For a clock or random read that names a run directory
    (`run_id = datetime.now().strftime("%m%d_%H%M%S")`): read by each process, two ranks a
    second apart would name two directories. Rank 0's value is passed through torchrun's
    rendezvous store (TORCHELASTIC_USE_AGENT_STORE), which exists before ddp_setup() and
    needs no process group, so this works in a config parser that runs before setup. It is
    no collective: rank 0 never waits, the other ranks wait for rank 0's value at most 60 s.
    Every call site counts its calls, so the n-th call on each rank gets rank 0's n-th
    value. Without the store (another launcher), or when rank 0's value does not come, a
    rank keeps its own value, with a warning.
    """
    # Imported here, not at the top: a script's own `from datetime import datetime` stays.
    import pickle
    import sys
    from datetime import timedelta

    value = read(*args, **kwargs)
    if WORLD_SIZE == 1:
        return value
    state = ddp_rank0_value.__dict__.setdefault("state", {"calls": {}, "store": None})
    caller = sys._getframe(1)
    site = f"{os.path.basename(caller.f_code.co_filename)}:{caller.f_lineno}"
    count = state["calls"][site] = state["calls"].get(site, 0) + 1
    restart = os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")
    key = f"dp2ddp/rank0_value/{restart}/{site}/{count}"
    try:
        if os.environ.get("TORCHELASTIC_USE_AGENT_STORE") != "True":
            raise RuntimeError("no torchrun rendezvous store")
        if state["store"] is None:
            state["store"] = dist.TCPStore(
                os.environ["MASTER_ADDR"],
                int(os.environ["MASTER_PORT"]),
                is_master=False,
                timeout=timedelta(seconds=60),
            )
        if RANK == 0:
            state["store"].set(key, pickle.dumps(value))
            return value
        return pickle.loads(state["store"].get(key))
    except (RuntimeError, OSError, KeyError, ValueError) as error:
        if RANK != 0:
            warnings.warn(
                f"rank {RANK}: rank 0's value of {site} did not come ({error}); "
                "this rank keeps its own, which may name another directory",
                stacklevel=2,
            )
        return value


def main():
    ddp_setup()
    save = os.path.join("runs", ddp_rank0_value(run_name, "exp"))
    os.makedirs(save, exist_ok=True)
    trial = f"trials/{ddp_rank0_value(naming.trial_id)}"
    os.makedirs(trial, exist_ok=True)
    model = DistributedDataParallel(nn.Linear(4, 2).to(DEVICE), device_ids=DEVICE_IDS)
    if ddp_is_main():
        torch.save(model.state_dict(), os.path.join(save, "m.pt"))
    ddp_barrier()
    model.load_state_dict(torch.load(os.path.join(save, "m.pt"), map_location=DEVICE))


if __name__ == "__main__":
    main()
