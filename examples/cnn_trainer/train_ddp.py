"""A small CNN image classifier with the usual command-line training script layout.

argparse options, a shuffled training DataLoader and an ordered evaluation DataLoader,
an epoch loop that logs the loss, accuracy counted under torch.no_grad(), and a checkpoint
saved from the unwrapped model and loaded back. The images are synthetic: each class is a
bright bar at a class-specific position plus noise, so a few epochs learn it.
"""

import argparse
import atexit
import logging
import os
import sys
import time
import warnings

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
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
    ddp_quiet_logging()
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


def ddp_all_reduce_sum(*values):
    """Sum evaluation counters over all processes, so every rank reports the global figure.

    Each value keeps its type (int, float or tensor on its device); one value in gives one
    value back, several give a tuple.
    """
    summed = []
    for value in values:
        if isinstance(value, torch.Tensor):
            total = value.detach().to(DEVICE, copy=True)
        else:
            exact = torch.float64 if torch.tensor(value).is_floating_point() else torch.int64
            total = torch.tensor(value, dtype=exact, device=DEVICE)
        if dist.is_initialized() and WORLD_SIZE > 1:
            dist.all_reduce(total, op=dist.ReduceOp.SUM)
        if isinstance(value, torch.Tensor):
            summed.append(total.to(value.device))
        else:
            summed.append(type(value)(total.item()))
    return summed[0] if len(summed) == 1 else tuple(summed)


def ddp_barrier():
    """Wait until rank 0 has written its checkpoint before another rank reads it."""
    if dist.is_initialized():
        dist.barrier()


def ddp_eval_sampler(dataset):
    """Indices RANK, RANK + WORLD_SIZE, ...: each process evaluates a disjoint slice.

    Unlike DistributedSampler nothing is padded or repeated, so metrics summed over the ranks
    are exact; slices differ by at most one sample. Under no_grad DDP syncs buffers on the
    first forward only, which every rank reaches while len(dataset) >= WORLD_SIZE.
    """
    if len(dataset) < WORLD_SIZE and RANK == 0:
        warnings.warn(
            f"{len(dataset)} evaluation samples for {WORLD_SIZE} processes: "
            "ranks without a sample can leave the others waiting in DDP's buffer sync",
            stacklevel=2,
        )
    return range(RANK, len(dataset), WORLD_SIZE)


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


def ddp_quiet_logging():
    """Ranks other than 0 drop log records below WARNING, from every logger of the process.

    A project logger configured anywhere (handlers added in a helper module, dictConfig from
    a JSON file, basicConfig) would print each INFO line once per rank. logging.disable is
    process-wide and outlives later configuration (dictConfig and basicConfig keep it).
    Warnings and errors still come from every rank: they report that rank's own trouble.
    """
    if RANK != 0:
        logging.disable(logging.INFO)


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


logger = logging.getLogger("cnn_trainer")


class Net(nn.Module):
    def __init__(self, num_classes=4):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 8, kernel_size=3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, kernel_size=3, padding=1)
        self.fc = nn.Linear(16 * 4 * 4, num_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(torch.flatten(x, 1))


def synthetic_images(num_images, num_classes, size=16, seed=0):
    generator = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, num_classes, (num_images,), generator=generator)
    images = torch.randn(num_images, 1, size, size, generator=generator)
    rows = labels * (size // num_classes)
    for i, row in enumerate(rows.tolist()):
        images[i, 0, row : row + 2, :] += 0.4
    return TensorDataset(images, labels)


def train(model, device, train_loader, optimizer, epoch, log_interval):
    model.train()
    running_loss = 0.0
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.cross_entropy(output, target)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        if batch_idx % log_interval == 0:
            if ddp_is_main():
                logger.info(
                    "Train Epoch: %d [%d/%d]\tLoss: %.4f",
                    epoch, batch_idx * len(data), len(train_loader.dataset), loss.item(),
                )
    return running_loss / len(train_loader)


def evaluate(model, device, test_loader):
    model.eval()
    correct = 0
    total = 0
    test_loss = 0.0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.cross_entropy(output, target, reduction="sum").item()
            pred = output.argmax(dim=1)
            correct += (pred == target).sum().item()
            total += target.size(0)
        test_loss, correct, total = ddp_all_reduce_sum(test_loss, correct, total)
    return test_loss / total, correct / total


def main():
    ddp_setup()
    parser = argparse.ArgumentParser(description="Synthetic-image CNN trainer")
    parser.add_argument("--batch-size", type=int, default=64, help="input batch size for training")
    parser.add_argument("--test-batch-size", type=int, default=128)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=0, help="DataLoader worker processes")
    parser.add_argument("--log-interval", type=int, default=10)
    parser.add_argument("--checkpoint", default="cnn_checkpoint.pt")
    args = parser.parse_args()

    logging.basicConfig(
        stream=sys.stdout, level=logging.INFO, format="%(levelname)s %(name)s: %(message)s"
    )
    torch.manual_seed(args.seed)
    device = DEVICE

    with ddp_same_random():
        train_set = synthetic_images(1024, 4, seed=args.seed)
        test_set = synthetic_images(256, 4, seed=args.seed + 1)
    train_loader = DataLoader(
        train_set,
        batch_size=ddp_per_rank_batch(args.batch_size),
        sampler=DistributedSampler(train_set, shuffle=True),
        num_workers=args.workers,
    )
    test_loader = DataLoader(
        test_set,
        batch_size=ddp_per_rank_batch(args.test_batch_size),
        sampler=ddp_eval_sampler(test_set),
        num_workers=args.workers,
    )

    model = Net(num_classes=4)
    n_gpu = torch.cuda.device_count()
    if n_gpu > 1:
        if ddp_is_main():
            logger.info("Using %d GPUs", n_gpu)
    model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
    model.to(device)

    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)

    best_acc = 0.0
    for epoch in range(1, args.epochs + 1):
        train_loader.sampler.set_epoch(epoch)
        start = time.time()
        train_loss = train(model, device, train_loader, optimizer, epoch, args.log_interval)
        test_loss, accuracy = evaluate(model, device, test_loader)
        scheduler.step()
        if ddp_is_main():
            print(
                f"epoch {epoch}: train loss {train_loss:.4f} test loss {test_loss:.4f} "
                f"accuracy {accuracy:.3f} ({time.time() - start:.1f}s)"
            )
        if accuracy >= best_acc:
            best_acc = accuracy
            model_to_save = model.module if hasattr(model, "module") else model
            if ddp_is_main():
                torch.save(
                    {"epoch": epoch, "model": model_to_save.state_dict(), "accuracy": accuracy},
                    args.checkpoint,
                )
        ddp_barrier()

    # Reload the best weights into a fresh model and check they reproduce the accuracy.
    checkpoint = torch.load(args.checkpoint, map_location=DEVICE)
    restored = Net(num_classes=4)
    restored.load_state_dict(checkpoint["model"])
    restored.to(device)
    _, restored_acc = evaluate(restored, device, test_loader)
    if ddp_is_main():
        print(f"restored epoch {checkpoint['epoch']} checkpoint: accuracy {restored_acc:.3f}")
    if os.path.exists(args.checkpoint):
        if ddp_is_main():
            print(f"checkpoint size {os.path.getsize(args.checkpoint) // 1024} KiB")
    if ddp_is_main():
        print(f"final accuracy {best_acc:.3f}")


if __name__ == "__main__":
    main()
