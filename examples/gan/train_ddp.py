"""A small GAN learning a ring of 2-d Gaussians, in the layout of the PyTorch DCGAN tutorial.

Generator and discriminator are separate DataParallel models with their own Adam
optimizers, wrapped with the tutorial's `(device.type == 'cuda') and (ngpu > 1)` guard.
The latent noise is drawn inside the training loop, as every GAN does.
"""

import atexit
import math
import os
import warnings

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.optim as optim
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
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


def ddp_broadcast_module(module):
    """Copy rank 0's parameters and buffers to every rank. DistributedDataParallel
    copies them once, when it wraps the model; a model re-initialised in place after
    that (model.apply(weights_init)) would hold each rank's own random draw, and the
    ranks would train different models. Every rank calls it, right after the
    re-initialisation."""
    if dist.is_initialized() and dist.get_world_size() > 1:
        for tensor in module.state_dict().values():
            dist.broadcast(tensor, 0)


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


ddp_setup()


nz = 8  # size of the latent vector
ngf = 64  # generator width
ndf = 64  # discriminator width
batch_size = 64
num_epochs = 3
lr = 2e-3
beta1 = 0.5
ngpu = torch.cuda.device_count()


def ring_of_gaussians(num_points, modes=8, radius=2.0, std=0.05):
    angles = torch.randint(0, modes, (num_points,)).float() * (2 * math.pi / modes)
    centres = torch.stack([radius * torch.cos(angles), radius * torch.sin(angles)], dim=1)
    return centres + std * torch.randn(num_points, 2)


class Generator(nn.Module):
    def __init__(self, ngpu):
        super(Generator, self).__init__()
        self.ngpu = ngpu
        self.main = nn.Sequential(
            nn.Linear(nz, ngf),
            nn.ReLU(True),
            nn.Linear(ngf, ngf),
            nn.ReLU(True),
            nn.Linear(ngf, 2),
        )

    def forward(self, input):
        return self.main(input)


class Discriminator(nn.Module):
    def __init__(self, ngpu):
        super(Discriminator, self).__init__()
        self.ngpu = ngpu
        self.main = nn.Sequential(
            nn.Linear(2, ndf),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(ndf, ndf),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(ndf, 1),
            nn.Sigmoid(),
        )

    def forward(self, input):
        return self.main(input).view(-1)


def weights_init(m):
    if isinstance(m, nn.Linear):
        nn.init.normal_(m.weight.data, 0.0, 0.1)
        nn.init.constant_(m.bias.data, 0)


torch.manual_seed(999)
device = DEVICE

with ddp_same_random():
    dataset = TensorDataset(ring_of_gaussians(2048))
dataloader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(batch_size),
    sampler=DistributedSampler(dataset, shuffle=True),
)

netG = Generator(ngpu).to(device)
netG = DistributedDataParallel(netG.to(DEVICE), device_ids=DEVICE_IDS)
netG.apply(weights_init)
ddp_broadcast_module(netG)

netD = Discriminator(ngpu).to(device)
netD = DistributedDataParallel(netD.to(DEVICE), device_ids=DEVICE_IDS)
netD.apply(weights_init)
ddp_broadcast_module(netD)

criterion = nn.BCELoss()
fixed_noise = torch.randn(256, nz, device=device)
real_label = 1.0
fake_label = 0.0

optimizerD = optim.Adam(netD.parameters(), lr=lr, betas=(beta1, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=lr, betas=(beta1, 0.999))

if ddp_is_main():
    print("Starting Training Loop...")
for epoch in range(num_epochs):
    dataloader.sampler.set_epoch(epoch)
    for i, (real,) in enumerate(dataloader, 0):
        # (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
        netD.zero_grad()
        real_cpu = real.to(device)
        b_size = real_cpu.size(0)
        label = torch.full((b_size,), real_label, dtype=torch.float, device=device)
        output = netD(real_cpu)
        errD_real = criterion(output, label)
        errD_real.backward()
        D_x = output.mean().item()

        noise = torch.randn(b_size, nz, device=device)
        fake = netG(noise)
        label.fill_(fake_label)
        output = netD(fake.detach())
        errD_fake = criterion(output, label)
        errD_fake.backward()
        errD = errD_real + errD_fake
        optimizerD.step()

        # (2) Update G network: maximize log(D(G(z)))
        netG.zero_grad()
        label.fill_(real_label)
        output = netD(fake)
        errG = criterion(output, label)
        errG.backward()
        D_G_z = output.mean().item()
        optimizerG.step()

    if ddp_is_main():
        print(
            "[%d/%d]\tLoss_D: %.4f\tLoss_G: %.4f\tD(x): %.4f\tD(G(z)): %.4f"
            % (epoch, num_epochs, errD.item(), errG.item(), D_x, D_G_z)
        )

with torch.no_grad():
    samples = netG(fixed_noise).cpu()
radius = samples.norm(dim=1).mean().item()
if ddp_is_main():
    print(f"mean radius of generated points {radius:.3f} (target 2.0)")
    print(f"final loss D {errD.item():.4f} G {errG.item():.4f}")
