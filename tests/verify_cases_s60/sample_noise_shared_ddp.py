"""sample_noise_dp.py as dp2ddp migrate wrote it at 4e255806 (`--inline-helpers`): the
helper's draw put in `with ddp_same_random():`, which runs per sample too, so every rank
draws rank 0's noise for its own samples (stop 59 v1-C). Kept as written, for verify."""

import atexit
import os
import warnings

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

# --- dp2ddp: DDP setup. Launch: torchrun --nproc_per_node=N sample_noise_dp.py
LOCAL_RANK = int(os.environ.get("LOCAL_RANK", "0"))
RANK = int(os.environ.get("RANK", "0"))
WORLD_SIZE = int(os.environ.get("WORLD_SIZE", "1"))
DEVICE = torch.device(f"cuda:{LOCAL_RANK}" if torch.cuda.is_available() else "cpu")
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
        dist.init_process_group(backend=backend, store=dist.HashStore(), rank=0, world_size=1)
    atexit.register(ddp_cleanup)


def ddp_cleanup():
    """Leave the process group at exit, also when training raised. On gloo, first let go
    of the GIL a moment: a gloo thread still needing it to free the last all-reduce at
    exit aborts the finished script ("terminate called without an active exception")."""
    if dist.is_initialized():
        if dist.get_backend() == "gloo":
            import time  # here: the script's own `time` may be another name

            time.sleep(0.05)
        dist.destroy_process_group()


def ddp_is_main():
    """Rank 0 prints, logs and saves for everyone."""
    return RANK == 0


def ddp_call_key(kind, frame):
    """The store key of a keyed helper's call (ddp_rank0_value, ddp_stdin) from `frame`,
    and the call's own site (`train.py:42`, for messages).

    Rank 0 sets a value under the key, the other ranks wait for it: the ranks must
    compute the same key for the same call. The key is the call path through the
    program's own code (each frame's file and line, from the call up to the program's
    start) and the count of calls along that path: a function of the program that reads
    (`run_name()` from the clock) may be called from a statement the migration leaves to
    rank 0 (a file rank 0 writes) and from one every rank runs; keyed by its own line
    alone, its n-th call on rank 1 would take rank 0's n-th, made for another statement.
    Along one path the ranks call as often, unless the program's own conditions differ
    between ranks (the migration says so: DP053). Frames of installed libraries and of
    the standard library are left out of the path: a library may run its own lines on
    rank 0 only (a progress bar the migration disables on the other ranks walks its
    iterable through another line when disabled), and a key that differs by rank leaves
    the other ranks waiting for a value that never comes.
    """
    # Here, not at the top: the program's own names stay its own.
    import sysconfig

    if "library" not in ddp_call_key.__dict__:
        paths = sysconfig.get_paths()
        ddp_call_key.library = tuple(
            dict.fromkeys(
                os.path.join(os.path.realpath(paths[name]), "")
                for name in ("stdlib", "platstdlib", "purelib", "platlib")
                if name in paths
            )
        )
        ddp_call_key.files = {}
    files = ddp_call_key.files
    site = f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}"
    path = []
    while frame is not None:
        filename = frame.f_code.co_filename
        if filename not in files:
            files[filename] = not (
                filename.startswith("<frozen ")
                or os.path.realpath(filename).startswith(ddp_call_key.library)
            )
        if files[filename]:
            path.append(f"{os.path.basename(filename)}:{frame.f_lineno}")
        frame = frame.f_back
    calls = ddp_call_key.__dict__.setdefault("calls", {})
    route = "<".join(path)
    count = calls[kind, route] = calls.get((kind, route), 0) + 1
    restart = os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")
    return f"dp2ddp/{kind}/{restart}/{route}/{count}", site


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
    0's value at most 60 s. Every call path counts its calls (ddp_call_key), so the
    n-th call along a path on each rank gets rank 0's n-th value there. Without the
    store (another launcher), or when rank 0's value does not come, a rank keeps its
    own value, with a warning.
    """
    # Here, not at the top: a script's own `from datetime import datetime` stays.
    import pickle
    import sys
    from datetime import timedelta

    value = read(*args, **kwargs)
    if WORLD_SIZE == 1:
        return value
    state = ddp_rank0_value.__dict__.setdefault("state", {"store": None})
    key, site = ddp_call_key("rank0_value", sys._getframe(1))
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
    training loop (augmentation, dropout) stays per rank; but a generator that was
    already rank 0's on entry (the ranks seeded alike) goes on from rank 0's state: its
    own would lag rank 0's by the block's draws, and a later draw the ranks must agree
    on (a sampler's offset drawn as a loader is built, CPC_audio) would differ. The n-th
    block entered on a rank draws what rank 0 drew in its n-th block. A block inside
    another (a helper that shares its own draws, called in a shared statement) already
    draws rank 0's numbers and changes nothing: left, it must not give a rank the states
    it had on entering it, which would draw the outer block's next numbers again. Plain
    python (a world of one): nothing changes.
    """

    #: blocks entered and not yet left
    depth = 0

    def __enter__(self):
        ddp_same_random.depth += 1
        if ddp_same_random.depth == 1:
            self.own = self.states()
            shared = ddp_rank0_value(self.states)
            if RANK != 0:
                self.agreed = list(map(self.same_state, self.own, shared))
                self.set_states(shared)
        return self

    def __exit__(self, *exc_info):
        ddp_same_random.depth -= 1
        if ddp_same_random.depth == 0 and RANK != 0:
            after = self.states()
            self.set_states(
                tuple(
                    now if agreed else own
                    for now, own, agreed in zip(after, self.own, self.agreed, strict=True)
                )
            )
        return False

    @staticmethod
    def states():
        """The global generators a script draws from without one of its own: the
        states of Python's `random`, numpy's (when installed) and torch's CPU one."""
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

    @staticmethod
    def same_state(a, b):
        """Whether two states of one generator (Python's tuple, numpy's tuple holding an
        array, torch's byte tensor) are equal."""
        if isinstance(a, tuple) and isinstance(b, tuple):
            same = ddp_same_random.same_state
            return len(a) == len(b) and all(map(same, a, b))
        if hasattr(a, "shape") and hasattr(b, "shape"):  # a tensor, numpy's key array
            return tuple(a.shape) == tuple(b.shape) and bool((a == b).all())
        return type(a) is type(b) and a == b


ddp_setup()


class NoisyPoints(Dataset):
    def __init__(self, keep_on_mem=False):
        generator = torch.Generator().manual_seed(0)
        self.clean = torch.randn(24, 4, generator=generator)
        self.kept = [self.add_noise(x) for x in self.clean] if keep_on_mem else None

    def __len__(self):
        return len(self.clean)

    def __getitem__(self, index):
        clean = self.clean[index]
        noisy = self.kept[index] if self.kept is not None else self.add_noise(clean)
        return {"clean": clean, "noisy": noisy}

    def add_noise(self, clean):
        with ddp_same_random():
            return clean + 0.5 * torch.randn(clean.shape)


dataset = NoisyPoints()
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(8),
    sampler=DistributedSampler(dataset, shuffle=True),
)
model = DistributedDataParallel(
    nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 4)).to(DEVICE),
    device_ids=DEVICE_IDS,
)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for batch in loader:
    loss = nn.functional.mse_loss(model(batch["noisy"]), batch["clean"])
    opt.zero_grad()
    loss.backward()
    opt.step()
