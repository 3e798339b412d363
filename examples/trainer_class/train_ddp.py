"""A Trainer class that owns a DataParallel model, clips gradients and sums its loss.

From "How can I update parameters when training a PyTorch model with DataParallel on
multiple GPUs?" (examples 1 and 3): DataParallel averages nothing by itself, gradients of
the gathered loss flow back to the one set of parameters, and clip_grad_norm_ runs after
backward on those. The loss here is a sum over the batch (reduction="sum"), which DDP's
gradient averaging scales differently: the migration backpropagates it times WORLD_SIZE.
"""

import atexit
import os
import warnings

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.utils as nn_utils
import torch.optim as optim
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset, random_split
from torch.utils.data.distributed import DistributedSampler

# --- dp2ddp: DDP setup. Launch: torchrun --nproc_per_node=N train.py
LOCAL_RANK = int(os.environ.get("LOCAL_RANK", "0"))
RANK = int(os.environ.get("RANK", "0"))
WORLD_SIZE = int(os.environ.get("WORLD_SIZE", "1"))
DEVICE = (
    torch.device("cuda", LOCAL_RANK)
    if torch.cuda.is_available()
    else torch.device("cpu")
)
DEVICE_IDS = [LOCAL_RANK] if torch.cuda.is_available() else None


def ddp_setup():
    """Join torchrun's process group (NCCL on GPUs, gloo on CPU); plain python: a world
    of one."""
    if dist.is_initialized():
        return
    backend = "nccl" if torch.cuda.is_available() else "gloo"
    if torch.cuda.is_available():
        torch.cuda.set_device(LOCAL_RANK)
    if "MASTER_ADDR" in os.environ:
        dist.init_process_group(backend=backend)
    else:
        dist.init_process_group(
            backend=backend, store=dist.HashStore(), rank=0, world_size=1
        )
    atexit.register(ddp_cleanup)


def ddp_cleanup():
    """Leave the process group at exit, also when training raised."""
    if dist.is_initialized():
        dist.destroy_process_group()


def ddp_is_main():
    """Rank 0 prints, logs and saves for everyone."""
    return RANK == 0


def ddp_all_reduce_sum(*values):
    """Sum evaluation counters over all processes, so every rank reports the global
    figure.

    Each value keeps its type (int, float or tensor on its device); one value in gives
    one value back, several give a tuple.
    """
    summed = []
    for value in values:
        if isinstance(value, torch.Tensor):
            total = value.detach().to(DEVICE, copy=True)
        else:
            exact = (
                torch.float64
                if torch.tensor(value).is_floating_point()
                else torch.int64
            )
            total = torch.tensor(value, dtype=exact, device=DEVICE)
        if dist.is_initialized() and WORLD_SIZE > 1:
            dist.all_reduce(total, op=dist.ReduceOp.SUM)
        if isinstance(value, torch.Tensor):
            summed.append(total.to(value.device))
        else:
            summed.append(type(value)(total.item()))
    return summed[0] if len(summed) == 1 else tuple(summed)


def ddp_eval_sampler(dataset):
    """Indices RANK, RANK + WORLD_SIZE, ...: each process evaluates a disjoint slice.

    Unlike DistributedSampler nothing is padded or repeated, so metrics summed over the
    ranks are exact; slices differ by at most one sample. Under no_grad DDP syncs
    buffers on the first forward only, which every rank reaches while len(dataset) >=
    WORLD_SIZE.
    """
    if len(dataset) < WORLD_SIZE and RANK == 0:
        warnings.warn(
            f"{len(dataset)} evaluation samples for {WORLD_SIZE} processes: "
            "ranks without a sample can leave the others waiting in DDP's buffer sync",
            stacklevel=2,
        )
    return range(RANK, len(dataset), WORLD_SIZE)


def ddp_per_rank_batch(batch_size):
    """DataParallel's batch_size was the global batch: each of WORLD_SIZE processes
    loads a part."""
    per_rank = max(1, batch_size // WORLD_SIZE)
    if batch_size % WORLD_SIZE and RANK == 0:
        warnings.warn(
            f"batch_size={batch_size} does not divide by WORLD_SIZE={WORLD_SIZE}: each "
            f"process loads {per_rank}, so the global batch is {per_rank * WORLD_SIZE}",
            stacklevel=2,
        )
    return per_rank


def ddp_rank0_value(read, /, *args, **kwargs):
    """`read(*args, **kwargs)` on every rank, and rank 0's value on every rank.

    For a clock or random read that names a run directory
    (`run_id = datetime.now().strftime("%m%d_%H%M%S")`): read by each process, two ranks
    a second apart would name two directories. Rank 0's value is passed through
    torchrun's rendezvous store (TORCHELASTIC_USE_AGENT_STORE), which exists before
    ddp_setup() and needs no process group, so this works in a config parser that runs
    before setup. It is no collective: rank 0 never waits, the other ranks wait for rank
    0's value at most 60 s. Every call site counts its calls, so the n-th call on each
    rank gets rank 0's n-th value. Without the store (another launcher), or when rank
    0's value does not come, a rank keeps its own value, with a warning.
    """
    # Imported here, not at the top: a script's own `from datetime import datetime`
    # stays.
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
    indices): DistributedSampler shards by index, so every rank must build the same
    dataset. On entry each rank takes rank 0's states of Python's `random`, numpy's and
    torch's global generators (through ddp_rank0_value: torchrun's rendezvous store, no
    collective); on exit rank 0 goes on from where its draws left it (as the original
    program did) and the other ranks get their own states back, so randomness in the
    training loop (augmentation, dropout) stays per rank. The n-th block entered on a
    rank draws what rank 0 drew in its n-th block. Plain python (a world of one):
    nothing changes.
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
        """The states of the global generators a script draws from without a generator
        of its own: Python's `random`, numpy's (when installed) and torch's CPU
        generator."""
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


class MLP(nn.Module):
    def __init__(self, in_features, hidden, out_features):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(in_features, hidden),
            nn.Tanh(),
            nn.Linear(hidden, hidden),
            nn.Tanh(),
            nn.Linear(hidden, out_features),
        )

    def forward(self, x):
        return self.net(x)


class Trainer:
    def __init__(self, model, train_loader, val_loader, lr=1e-3, max_norm=1.0):
        self.device = DEVICE
        self.model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
        self.model.to(self.device)
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.criterion = nn.MSELoss(reduction="sum")
        self.optimizer = optim.SGD(self.model.parameters(), lr=lr, momentum=0.9)
        self.max_norm = max_norm

    def train_epoch(self):
        self.model.train()
        total = 0.0
        for inputs, labels in self.train_loader:
            inputs, labels = inputs.to(self.device), labels.to(self.device)
            self.optimizer.zero_grad()
            outputs = self.model(inputs)
            loss = self.criterion(outputs, labels)
            (loss * WORLD_SIZE).backward()
            nn_utils.clip_grad_norm_(self.model.parameters(), max_norm=self.max_norm)
            self.optimizer.step()
            total += loss.item()
        total = ddp_all_reduce_sum(total)
        return total / len(self.train_loader.dataset)

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        total = 0.0
        for inputs, labels in self.val_loader:
            inputs, labels = inputs.to(self.device), labels.to(self.device)
            total += self.criterion(self.model(inputs), labels).item()
        total = ddp_all_reduce_sum(total)
        return total / len(self.val_loader.dataset)

    def save(self, path):
        model = (
            self.model.module
            if isinstance(self.model, DistributedDataParallel)
            else self.model
        )
        if ddp_is_main():
            torch.save(model.state_dict(), path)

    def fit(self, num_epochs):
        for epoch in range(num_epochs):
            self.train_loader.sampler.set_epoch(epoch)
            train_loss = self.train_epoch()
            val_loss = self.validate()
            if ddp_is_main():
                print(
                    f"epoch {epoch}: train mse {train_loss:.4f} val mse {val_loss:.4f}"
                )
        return val_loss


def main():
    ddp_setup()
    torch.manual_seed(0)
    with ddp_same_random():
        x = torch.rand(800, 3) * 4 - 2
    y = torch.stack([torch.sin(x[:, 0]) * x[:, 1], torch.cos(x[:, 2])], dim=1)
    train_set, val_set = random_split(
        TensorDataset(x, y), [640, 160], generator=torch.Generator().manual_seed(0)
    )
    train_loader = DataLoader(
        train_set,
        batch_size=ddp_per_rank_batch(32),
        sampler=DistributedSampler(train_set, shuffle=True),
    )
    val_loader = DataLoader(
        val_set,
        batch_size=ddp_per_rank_batch(64),
        sampler=ddp_eval_sampler(val_set),
    )

    trainer = Trainer(MLP(3, 64, 2), train_loader, val_loader, lr=1e-2)
    val_loss = trainer.fit(num_epochs=4)

    path = "mlp_checkpoint.pt"
    trainer.save(path)
    if ddp_is_main():
        print(f"saved {path} ({os.path.getsize(path) // 1024} KiB)")
        print(f"final loss {val_loss:.4f}")


if __name__ == "__main__":
    main()
