"""The samplers dp2ddp inserts: the same indices as DistributedSampler, sequential order in
O(1) memory (issue 10, item 9), and a migrated shuffle=False loader that really shards under
torchrun.

The sampler under test is the class rendered from templates/helpers/distributed_sampler.py.j2,
exactly as it lands in a migrated script's header, not a copy of it.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from torch.utils.data import DataLoader, Dataset, DistributedSampler

from dp2ddp import migrate_source
from dp2ddp.templating import render
from dp2ddp.transforms._support.names import DDP_DISTRIBUTED_SAMPLER

DRIVER = Path(__file__).resolve().parent / "e2e_driver.py"


def _sampler_class() -> type[DistributedSampler[int]]:
    namespace: dict[str, Any] = {"DistributedSampler": DistributedSampler, "itertools": itertools}
    exec(render("helpers/distributed_sampler.py.j2"), namespace)
    cls: type[DistributedSampler[int]] = namespace[DDP_DISTRIBUTED_SAMPLER]
    return cls


class _Sized(Dataset[int]):
    """A dataset of its own indices: a sampler only looks at its length."""

    def __init__(self, size: int) -> None:
        self.size = size

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> int:
        return index


@pytest.mark.parametrize("drop_last", [False, True])
def test_sequential_order_is_distributed_samplers_for_every_size_and_world(
    drop_last: bool,
) -> None:
    lazy = _sampler_class()
    checked = 0
    for size, world in itertools.product(range(0, 42), range(1, 9)):
        for rank in range(world):
            data = _Sized(size)
            ours = lazy(data, num_replicas=world, rank=rank, shuffle=False, drop_last=drop_last)
            theirs: DistributedSampler[int] = DistributedSampler(
                data, num_replicas=world, rank=rank, shuffle=False, drop_last=drop_last
            )
            assert list(ours) == list(theirs), (size, world, rank, drop_last)
            assert len(ours) == len(theirs)
            checked += 1
    assert checked == 42 * sum(range(1, 9))


def test_padding_longer_than_the_dataset_repeats_it_as_distributed_sampler_does() -> None:
    """Two samples over five ranks: the padded list is 0 1 0 1 0."""
    lazy = _sampler_class()
    got = [list(lazy(_Sized(2), num_replicas=5, rank=r, shuffle=False)) for r in range(5)]
    assert got == [[0], [1], [0], [1], [0]]


def test_large_worlds_and_sizes_match_distributed_sampler() -> None:
    lazy = _sampler_class()
    for size, world in [(10_007, 8), (65_536, 7), (99_999, 64), (1_000, 999), (3, 128)]:
        for rank in {0, 1, world // 2, world - 1}:
            for drop_last in (False, True):
                kwargs: dict[str, Any] = {
                    "num_replicas": world,
                    "rank": rank,
                    "drop_last": drop_last,
                }
                data = _Sized(size)
                ours = list(lazy(data, shuffle=False, **kwargs))
                assert ours == list(DistributedSampler(data, shuffle=False, **kwargs))


def test_shuffled_order_is_distributed_samplers_permutation() -> None:
    lazy = _sampler_class()
    for epoch in (0, 3):
        for rank in range(3):
            ours = lazy(_Sized(50), num_replicas=3, rank=rank, shuffle=True, seed=5)
            theirs: DistributedSampler[int] = DistributedSampler(
                _Sized(50), num_replicas=3, rank=rank, shuffle=True, seed=5
            )
            ours.set_epoch(epoch)
            theirs.set_epoch(epoch)
            assert list(ours) == list(theirs)


def test_sequential_order_takes_constant_memory() -> None:
    """A billion samples: DistributedSampler's list would be tens of GB; ours is a range."""
    lazy = _sampler_class()
    for size in (10**9, 10**9 + 1):  # no padding / padded
        sampler = lazy(_Sized(size), num_replicas=2, rank=1, shuffle=False)
        tracemalloc.start()
        try:
            first = list(itertools.islice(iter(sampler), 3))
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert first == [1, 3, 5]
        assert peak < 64 * 1024, f"{peak} bytes traced for the first indices of {size}"


def test_a_loader_with_it_batches_like_one_with_distributed_sampler() -> None:
    lazy = _sampler_class()
    data = _Sized(23)
    for rank in range(3):
        ours: DataLoader[int] = DataLoader(
            data, batch_size=4, sampler=lazy(data, 3, rank, shuffle=False)
        )
        theirs: DataLoader[int] = DataLoader(
            data, batch_size=4, sampler=DistributedSampler(data, 3, rank, False)
        )
        assert [b.tolist() for b in ours] == [b.tolist() for b in theirs]


# -- the migration inserts it ------------------------------------------------------------

_SCRIPT = '''\
import torch
from torch.utils.data import DataLoader, Dataset

SEEN = {"train": [], "val": []}


class Indexed(Dataset):
    """Sample i is the number i, so each rank's indices can be read off its batches."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.tensor([float(i)]), torch.tensor([float(i)])


def note(kind, x):
    SEEN[kind].extend(int(v) for v in x.flatten())


def main():
    model = torch.nn.DataParallel(torch.nn.Linear(1, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    train_loader = DataLoader(Indexed(37), batch_size=4, shuffle=False)
    val_loader = DataLoader(Indexed(23), batch_size=4)
    for epoch in range(2):
        model.train()
        for x, y in train_loader:
            note("train", x)
            loss = torch.nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    model.eval()
    count = 0
    with torch.no_grad():
        for x, y in val_loader:
            note("val", x)
            model(x)
            count += len(x)
    print("done", count)


if __name__ == "__main__":
    main()
'''

#: Appended to the migrated script (not part of the migration): each rank writes its indices.
_RECORD = """
import json as _json
import os as _os

with open(f"seen.{_os.environ.get('RANK', '0')}.json", "w") as _out:
    _json.dump(SEEN, _out)
"""


def test_unshuffled_training_loaders_get_the_lazy_sampler() -> None:
    result = migrate_source(_SCRIPT, filename="train.py")
    code, helpers = result.code, result.helpers_module
    assert f"sampler={DDP_DISTRIBUTED_SAMPLER}(train_dataset, shuffle=False)" in code
    assert "sampler=ddp_eval_sampler(val_dataset)" in code
    # The class and what it needs are in the generated module the script imports it from.
    assert DDP_DISTRIBUTED_SAMPLER in code.split("from _dp2ddp import", 1)[1].split("\n\n")[0]
    assert f"\nclass {DDP_DISTRIBUTED_SAMPLER}(DistributedSampler):\n" in helpers
    assert "from torch.utils.data.distributed import DistributedSampler\n" in helpers
    assert "\nimport itertools\n" in helpers
    assert migrate_source(code, filename="train.py").code == code  # a fixed point
    shuffled = migrate_source(_SCRIPT.replace("shuffle=False", "shuffle=True"))
    assert "sampler=DistributedSampler(train_dataset, shuffle=True)" in shuffled.code
    # no helper that nothing uses
    assert DDP_DISTRIBUTED_SAMPLER not in shuffled.code + shuffled.helpers_module
    assert "import itertools" not in shuffled.helpers_module


def test_unknown_shuffle_flag_gets_the_lazy_sampler_which_decides_at_run_time() -> None:
    code = migrate_source(_SCRIPT.replace("shuffle=False", "shuffle=SHUFFLE")).code
    assert f"sampler={DDP_DISTRIBUTED_SAMPLER}(train_dataset, shuffle=SHUFFLE)" in code
    assert "train_loader.sampler.set_epoch(epoch)" in code  # it may shuffle


@pytest.mark.e2e
def test_migrated_loaders_shard_the_data_under_torchrun(tmp_path: Path) -> None:
    """Two gloo ranks: training indices are DistributedSampler's exactly (every sample, the
    padding repeating index 0), evaluation slices are disjoint and cover the set."""
    script = tmp_path / "train_ddp.py"
    result = migrate_source(_SCRIPT, filename="train.py")
    script.write_text(result.code + _RECORD)
    (tmp_path / "_dp2ddp.py").write_text(result.helpers_module)  # beside it, as written
    out = tmp_path / "out"
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
    command += ["--nproc_per_node=2", str(DRIVER), str(out), str(script)]
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
    env["OMP_NUM_THREADS"] = "1"
    proc = subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env
    )
    workdir = out / tmp_path.name / script.stem
    seen = []
    for rank in range(2):
        # The driver's status, not torchrun's exit code: the run finished on this rank.
        status_file = workdir / f"rank{rank}.status.json"
        assert status_file.exists(), proc.stdout + proc.stderr
        status = json.loads(status_file.read_text())
        assert status["ok"], (status, (workdir / f"rank{rank}.stderr").read_text())
        seen.append(json.loads((workdir / f"seen.{rank}.json").read_text()))
    for rank in range(2):
        expected: list[int] = list(
            DistributedSampler(_Sized(37), num_replicas=2, rank=rank, shuffle=False)
        )
        assert seen[rank]["train"] == expected * 2  # two epochs, the same order
    assert set(seen[0]["train"]) | set(seen[1]["train"]) == set(range(37))
    assert set(seen[0]["train"][:19]) & set(seen[1]["train"][:19]) == {0}  # the padding
    val = [set(s["val"]) for s in seen]
    assert not val[0] & val[1] and val[0] | val[1] == set(range(23))
    assert sorted(seen[0]["val"] + seen[1]["val"]) == list(range(23))  # nothing twice


_VERIFY_PROBE = """
import itertools
import sys
from pathlib import Path
from torch.utils.data import DataLoader, DistributedSampler
from dp2ddp.transforms._support.names import DDP_DISTRIBUTED_SAMPLER
from dp2ddp.templating import render
from dp2ddp.verify import alignment, protocol
from dp2ddp.verify.recorder import Recorder

options = protocol.RunnerOptions(out=sys.argv[1], steps=1, seed=7, file_attr="x.py")
recorder = Recorder(options, 0, 1, Path(sys.argv[1]))
alignment.install(recorder, seed=7, scale_batch=1)
namespace = {"DistributedSampler": DistributedSampler, "itertools": itertools}
exec(render("helpers/distributed_sampler.py.j2"), namespace)  # as the migrated header does
lazy = namespace[DDP_DISTRIBUTED_SAMPLER]
data = list(range(12))
batches = [
    [b.tolist() for b in DataLoader(data, batch_size=2, sampler=lazy(data, 2, rank, False))]
    for rank in range(2)
]
for s, batch in enumerate([[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]):
    assert batches[0][s] + batches[1][s] == batch, (s, batches)  # contiguous halves
assert [r["kind"] for r in recorder.samplers] == ["DistributedSampler"] * 2
print("ok")
"""


def test_verify_aligns_the_lazy_sampler_like_distributed_sampler(tmp_path: Path) -> None:
    """Runs in a child: verify's alignment patches torch's samplers for the whole process."""
    result = subprocess.run(
        [sys.executable, "-c", _VERIFY_PROBE, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.stdout.strip() == "ok", result.stderr


# -- a loader built anew each epoch (R2 of stop 33, biubug6/Pytorch_Retinaface@b984b4b) ----


def test_samplers_rebuilt_at_one_place_count_the_rebuilds() -> None:
    """A new sampler with `rebuilt` starts at the epoch after its predecessor's last pass
    (without it each new sampler drew epoch 0's order again); ranks agree on the epoch."""
    cls: Any = _sampler_class()  # its own keywords, which DistributedSampler has not
    cls.rebuilt_epochs.clear()
    orders = []
    for _ in range(3):
        sampler = cls(_Sized(16), 2, 0, shuffle=True, advance_epoch=True, rebuilt="t.py:1")
        orders.append(list(sampler))
    assert len({tuple(o) for o in orders}) == 3, orders
    for epoch, order in enumerate(orders):
        twin: DistributedSampler[int] = DistributedSampler(_Sized(16), 2, 0, shuffle=True)
        twin.set_epoch(epoch)
        assert order == list(twin)
    fresh = cls(_Sized(16), 2, 0, shuffle=True, advance_epoch=True)
    assert list(fresh) == orders[0]  # no key: epoch 0 again


_REBUILT = """\
import math

import torch
from torch.utils.data import DataLoader, TensorDataset

SEEN = {"inline": [], "flat": [], "made": [], "named": [], "own": []}
data = TensorDataset(torch.arange(8.0).view(8, 1))
model = torch.nn.DataParallel(torch.nn.Linear(1, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(2):
    SEEN["inline"].append([])
    for (x,) in DataLoader(data, 4, shuffle=True):
        SEEN["inline"][-1] += [int(v) for v in x.view(-1)]
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
epoch_size = math.ceil(len(data) / 4)
for it in range(2 * epoch_size):
    if it % epoch_size == 0:
        batches = iter(DataLoader(data, 4, shuffle=True))
        SEEN["flat"].append([])
    (x,) = next(batches)
    SEEN["flat"][-1] += [int(v) for v in x.view(-1)]
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()


def step(form, x):
    SEEN[form][-1] += [int(v) for v in x.view(-1)]
    model(x).pow(2).mean().backward()


def make():
    return DataLoader(data, 4, shuffle=True)


def make_named():
    return DataLoader(data, 4, shuffle=True)


def train_one():
    loader = DataLoader(data, 4, shuffle=True)
    for (x,) in loader:
        step("own", x)


for epoch in range(2):
    SEEN["made"].append([])
    for (x,) in make():
        step("made", x)
    SEEN["named"].append([])
    loader = make_named()
    for (x,) in loader:
        step("named", x)
    SEEN["own"].append([])
    train_one()
"""


@pytest.mark.e2e
def test_a_loader_rebuilt_each_epoch_reshuffles_each_epoch_under_torchrun(
    tmp_path: Path,
) -> None:
    """Two gloo ranks: built anew each epoch (inline in the epoch loop's `for`, and
    `iter(DataLoader(...))` in a flat iteration loop), the loader's second epoch has
    another order than its first (before: the same, as each new sampler began at epoch
    0), and in each epoch the ranks' samples are disjoint and cover the data set. Also
    built by a function the epoch loop calls (R2's rest, stop 34): inline `make()`,
    named `loader = make_named()` (set_epoch after it), a train function's own loader."""
    script = tmp_path / "train_ddp.py"
    result = migrate_source(_REBUILT, filename="train.py")
    assert {d.code for d in result.diagnostics} == {"DP011"}  # the truth, for review
    assert result.code.count('rebuilt="train.py:12"') == 2
    assert "loader = make_named()\n    loader.sampler.set_epoch(epoch)" in result.code
    script.write_text(result.code + _RECORD)
    (tmp_path / "_dp2ddp.py").write_text(result.helpers_module)
    out = tmp_path / "out"
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
    command += ["--nproc_per_node=2", str(DRIVER), str(out), str(script)]
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
    env["OMP_NUM_THREADS"] = "1"
    proc = subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env
    )
    workdir = out / tmp_path.name / script.stem
    seen = []
    for rank in range(2):
        status_file = workdir / f"rank{rank}.status.json"
        assert status_file.exists(), proc.stdout + proc.stderr
        status = json.loads(status_file.read_text())
        assert status["ok"], (status, (workdir / f"rank{rank}.stderr").read_text())
        seen.append(json.loads((workdir / f"seen.{rank}.json").read_text()))
    for form in ("inline", "flat", "made", "named", "own"):
        for rank in range(2):
            first, second = seen[rank][form]
            assert first != second, (form, rank, seen[rank][form])
        for epoch in range(2):
            parts = [set(seen[rank][form][epoch]) for rank in range(2)]
            assert not parts[0] & parts[1] and parts[0] | parts[1] == set(range(8)), parts
