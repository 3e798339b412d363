"""A wide MLP trained with a small batch: the case where DataParallel's per-step replication
of all parameters dominates the step time.

From "Why is training not starting with nn.DataParallel?" (example 2), scaled down so it
runs in seconds on a CPU. The model moves to the GPU before it is wrapped and the optimizer
is created before the wrap; each step is timed.
"""

import atexit
import os
import time
import warnings

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

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


def ddp_per_rank_batch(batch_size):
    """DataParallel's batch_size was the global batch: each of WORLD_SIZE processes loads a part."""
    per_rank = max(1, batch_size // WORLD_SIZE)
    if batch_size % WORLD_SIZE and RANK == 0:
        warnings.warn(
            f"batch_size={batch_size} does not divide by WORLD_SIZE={WORLD_SIZE}: each process "
            f"loads {per_rank}, so the global batch is {per_rank * WORLD_SIZE}",
            stacklevel=2,
        )
    return per_rank


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


class ddp_same_random:
    """`with ddp_same_random():` every rank draws the random numbers rank 0 draws.

    For what decides which samples a dataset holds and in what order (a sample list
    shuffled in a Dataset's __init__, random_split without a generator, a permutation of
    indices): DistributedSampler shards by index, so every rank must build the same dataset.
    On entry each rank takes rank 0's states of Python's `random`, numpy's and torch's
    global generators (through ddp_rank0_value: torchrun's rendezvous store, no collective);
    on exit rank 0 goes on from where its draws left it (as the original program did) and
    the other ranks get their own states back, so randomness in the training loop
    (augmentation, dropout) stays per rank. The n-th block entered on a rank draws what rank
    0 drew in its n-th block. Plain python (a world of one): nothing changes.
    """

    def __enter__(self):
        self.own = self.states()
        shared = ddp_rank0_value(self.states)
        if RANK != 0:
            self.set_states(shared)
        return self

    def __exit__(self, *exc_info):
        if RANK != 0:
            self.set_states(self.own)
        return False

    @staticmethod
    def states():
        """The states of the global generators a script draws from without a generator of
        its own: Python's `random`, numpy's (when installed) and torch's CPU generator."""
        import random

        try:
            import numpy
        except ImportError:
            numpy_state = None
        else:
            numpy_state = numpy.random.get_state()
        return random.getstate(), numpy_state, torch.get_rng_state()

    @staticmethod
    def set_states(states):
        import random

        python_state, numpy_state, torch_state = states
        random.setstate(python_state)
        if numpy_state is not None:
            import numpy

            numpy.random.set_state(numpy_state)
        torch.set_rng_state(torch_state)


ddp_setup()


class LargeModel(nn.Module):
    def __init__(self, input_size, hidden_size):
        super(LargeModel, self).__init__()
        self.layers = nn.Sequential(
            nn.Linear(input_size, hidden_size),
            nn.ReLU(),
            nn.Linear(hidden_size, hidden_size),
            nn.ReLU(),
            nn.Linear(hidden_size, hidden_size),
            nn.ReLU(),
            nn.Linear(hidden_size, input_size),
        )

    def forward(self, x):
        return self.layers(x)


torch.manual_seed(0)
input_size = 256  # 10000 in the article
hidden_size = 512  # 5000 in the article
batch_size = 16
num_steps = 12

# Denoising task: recover the clean signal from a noisy copy.
with ddp_same_random():
    clean = torch.randn(1024, input_size)
    noisy = clean + 0.1 * torch.randn_like(clean)
dataset = TensorDataset(noisy, clean)
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(batch_size),
    sampler=DistributedSampler(dataset, shuffle=True),
)

model = LargeModel(input_size, hidden_size)
if torch.cuda.is_available():
    model = model.to(DEVICE)

criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

if torch.cuda.device_count() > 1:
    if ddp_is_main():
        print("Using Data Parallel...")
model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)

step_times = []
for step, (input_tensor, target) in enumerate(loader):
    if step >= num_steps:
        break
    if torch.cuda.is_available():
        input_tensor, target = input_tensor.to(DEVICE), target.to(DEVICE)
    start_time = time.time()
    optimizer.zero_grad()
    output = model(input_tensor)
    loss = criterion(output, target)
    loss.backward()
    optimizer.step()
    end_time = time.time()
    step_times.append(end_time - start_time)
    if ddp_is_main():
        print(f"Step {step + 1}: loss = {loss.item():.4f}, time = {end_time - start_time:.4f} s")

if ddp_is_main():
    print(f"mean step time {sum(step_times) / len(step_times):.4f} s")
    print(f"final loss {loss.item():.4f}")
