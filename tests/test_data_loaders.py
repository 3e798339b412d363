"""ShardDataLoaders beyond the golden fixtures: helper run-time behaviour and idempotency."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import torch
import torch.distributed as dist
from conftest import FIXTURES, codes_in, fixture_cases, run_pass

from dp2ddp import migrate_source
from dp2ddp.templating import render
from dp2ddp.transforms._support.base import MigrationState
from dp2ddp.transforms._support.nodes import dataset_name
from dp2ddp.transforms.data import ShardDataLoaders

DATA_CASES = fixture_cases("data_", migrated=True)


def _helpers(rank: int, world_size: int) -> dict[str, Any]:
    """The three helper templates, executed as the migrated script would define them."""
    namespace: dict[str, Any] = {
        "torch": torch,
        "dist": dist,
        "warnings": warnings,
        "RANK": rank,
        "WORLD_SIZE": world_size,
        "DEVICE": torch.device("cpu"),
    }
    for name in ("per_rank_batch", "eval_sampler", "all_reduce_sum"):
        exec(compile(render(f"helpers/{name}.py.j2"), name, "exec"), namespace)
    return namespace


def test_per_rank_batch_splits_and_warns_once_when_uneven() -> None:
    split = _helpers(rank=0, world_size=4)["ddp_per_rank_batch"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        assert split(64) == 16
        assert not caught
        for _ in range(3):  # a loader rebuilt every epoch: one warning, not three
            assert split(10) == 2
        assert split(3) == 1  # never 0: a smaller batch than ranks still loads one sample
    messages = [str(w.message) for w in caught]
    assert len(messages) == 2
    assert "global batch is 8" in messages[0] and "global batch is 4" in messages[1]


def test_per_rank_batch_warns_on_rank_zero_only() -> None:
    split = _helpers(rank=1, world_size=4)["ddp_per_rank_batch"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert split(10) == 2
    assert not caught


@pytest.mark.filterwarnings("ignore:.*evaluation samples for")
@pytest.mark.parametrize("size", [0, 3, 10, 11])
def test_eval_sampler_shards_cover_each_sample_exactly_once(size: int) -> None:
    world = 4
    shards = [list(_helpers(r, world)["ddp_eval_sampler"](range(size))) for r in range(world)]
    assert sorted(i for shard in shards for i in shard) == list(range(size))
    assert max(map(len, shards)) - min(map(len, shards)) <= 1


def test_eval_sampler_warns_when_ranks_would_get_nothing() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _helpers(0, 4)["ddp_eval_sampler"](range(3))
    assert len(caught) == 1


def test_all_reduce_sum_keeps_types_in_a_world_of_one() -> None:
    reduce = _helpers(0, 1)["ddp_all_reduce_sum"]
    correct, loss, hits = reduce(7, 2.5, torch.tensor([1, 2], dtype=torch.long))
    assert (type(correct), correct) == (int, 7)
    assert (type(loss), loss) == (float, 2.5)
    assert hits.dtype == torch.long and hits.tolist() == [1, 2]
    assert reduce(3) == 3  # one value in, one value out (not a tuple)


def _shard_only(source: str) -> tuple[str, MigrationState]:
    """Run this transform alone, as if the file still had DataParallel."""
    return run_pass(ShardDataLoaders, source)


@pytest.mark.parametrize("name", DATA_CASES)
def test_transform_is_idempotent_on_its_own_output(name: str) -> None:
    """Loaders already sharded, set_epoch and reductions already there: nothing is added."""
    expected = (FIXTURES / name / "expected.py").read_text()
    code, state = _shard_only(expected)
    assert code == expected
    assert state.changes == []
    # Our own samplers are recognised: no DP009 (or any code the first run did not give).
    first_run = codes_in((FIXTURES / name / "warnings.txt").read_text())
    assert {w.code for w in state.warnings} <= set(first_run)


def test_nothing_happens_without_dataparallel() -> None:
    source = (FIXTURES / "data_noop" / "input.py").read_text()
    result = migrate_source(source)
    assert result.code == source and not result.diagnostics and not result.changes


def test_dataset_built_where_it_cannot_be_hoisted_is_reported_not_duplicated() -> None:
    source = (
        "import torch.nn as nn\n"
        "from torch.utils.data import DataLoader\n"
        "model = nn.DataParallel(nn.Linear(1, 1))\n"
        "make = lambda: DataLoader(Squares(10), batch_size=2, shuffle=True)\n"
    )
    result = migrate_source(source)
    assert "DataLoader(Squares(10), batch_size=2, shuffle=True)" in result.code
    assert [d.code for d in result.diagnostics] == ["DP020"]


@pytest.mark.parametrize(
    ("loader", "dataset"),
    [
        ("train_loader", "train_dataset"),
        ("trainloader", "trainset"),
        ("val_dataloader", "val_dataset"),
        ("train_dl", "train_ds"),
        ("loader", "dataset"),
        ("", "dataset"),
        ("batches", "batches_dataset"),
    ],
)
def test_hoisted_dataset_names_follow_the_loader_name(loader: str, dataset: str) -> None:
    assert dataset_name(loader) == dataset


# -- RandomSampler / SequentialSampler: shuffle on or off ---------------------------------
_SAMPLER_HEAD = (
    "import torch\n"
    "import torch.nn as nn\n"
    "from torch.utils.data import DataLoader, RandomSampler, TensorDataset\n"
    "model = nn.DataParallel(nn.Linear(2, 1))\n"
    "ds = TensorDataset(torch.randn(8, 2))\n"
)
_SAMPLER_LOOP = (
    "for epoch in range(2):\n    for (x,) in loader:\n        model(x).sum().backward()\n"
)


def _sampler_case(body: str) -> tuple[str, list[str]]:
    result = migrate_source(_SAMPLER_HEAD + body + _SAMPLER_LOOP)
    return result.code, [d.code for d in result.diagnostics]


@pytest.mark.parametrize(
    "body",
    [
        # The dataset is rebound between sampler and loader: two different objects.
        "sampler = RandomSampler(ds)\nds = TensorDataset(torch.randn(4, 2))\n"
        "loader = DataLoader(ds, sampler=sampler, batch_size=2)\n",
        # Bound in two places: which one reaches the loader is not known.
        "sampler = RandomSampler(ds)\nif ds:\n    sampler = RandomSampler(ds, True)\n"
        "loader = DataLoader(ds, sampler=sampler, batch_size=2)\n",
        # Read again in a nested function.
        "sampler = RandomSampler(ds)\ndef size():\n    return len(sampler)\n"
        "loader = DataLoader(ds, sampler=sampler, batch_size=2)\n",
    ],
)
def test_samplers_it_cannot_follow_are_sharded_as_dataparallel_split_them(body: str) -> None:
    """Not replaced by a DistributedSampler: wrapped as they are (DdpSamplerShard, issue 19)."""
    code, codes = _sampler_case(body)
    assert "DP009" not in codes
    assert "DistributedSampler(" not in code
    assert "sampler=DdpSamplerShard(sampler, ddp_per_rank_batch(2))" in code
    assert "batch_size=ddp_per_rank_batch(2)" in code


def test_a_sampler_parameter_is_sharded_at_run_time() -> None:
    """A parameter may be None (what the callers pass is not followed): the loader's
    arguments go to ddp_loader_arguments, which shards a sampler by DdpSamplerShard and none
    by a DistributedSampler (stop 49 a3-A: DdpSamplerShard(None) beside shuffle=True raised
    in DataLoader)."""
    code, codes = _sampler_case(
        "def build(sampler):\n    return DataLoader(ds, sampler=sampler, batch_size=2)\n"
        "loader = build(RandomSampler(ds))\n"
    )
    assert "DP009" not in codes
    assert "**ddp_loader_arguments(dataset=ds, sampler=sampler, batch_size=2)" in code


def test_sampler_beside_shuffle_stays_dp009() -> None:
    """DataLoader itself raises on this pair: the migration does not make it run."""
    code, codes = _sampler_case(
        "loader = DataLoader(ds, sampler=RandomSampler(ds), shuffle=True, batch_size=2)\n"
    )
    assert codes == ["DP009"]
    assert "Shard(" not in code and "DistributedSampler(" not in code


def test_annotated_sampler_variable_is_replaced_and_its_import_kept_while_used() -> None:
    code, codes = _sampler_case(
        "kept = DataLoader(ds, sampler=RandomSampler(ds, replacement=True))\n"
        "sampler: RandomSampler = RandomSampler(ds)\n"
        "loader = DataLoader(ds, sampler=sampler, batch_size=4)\n"
    )
    assert codes == []  # `kept` is sharded as it is (DdpSamplerShard)
    assert "sampler=DdpSamplerShard(RandomSampler(ds, replacement=True), 1)" in code
    assert "sampler: RandomSampler = DistributedSampler(ds, shuffle=True)\n" in code
    assert "loader = DataLoader(ds, sampler=sampler, batch_size=ddp_per_rank_batch(4))" in code
    assert "\n    loader.sampler.set_epoch(epoch)\n" in code
    assert "from torch.utils.data import DataLoader, RandomSampler, TensorDataset\n" in code


def test_samplers_through_a_module_alias_are_replaced() -> None:
    code, codes = _sampler_case(
        "import torch.utils.data as tud\n"
        "loader = DataLoader(ds, batch_size=4, sampler=tud.sampler.SequentialSampler(ds))\n"
    )
    assert codes == []
    assert "sampler=DdpDistributedSampler(ds, shuffle=False)" in code
    assert ".sampler.set_epoch(" not in code  # not shuffled: every epoch is the same order
    # RandomSampler was imported but never used: not ours to remove.
    assert "from torch.utils.data import DataLoader, RandomSampler, TensorDataset\n" in code


def test_sampler_replacement_is_a_fixed_point() -> None:
    first = migrate_source((FIXTURES / "data_random_sampler" / "input.py").read_text())
    second = migrate_source(first.code)
    assert second.code == first.code and not second.changes
    assert "RandomSampler" not in first.code and "SequentialSampler" not in first.code
