"""Classes v3-A, v3-B, v3-H (helper v3), v2-E and v2-C (helper v2) of the stop-41 validation
round and v3-B of stop 42's (docs/real-world.md), end to end: the originals (program
fixtures' input/) in a plain process, the committed migrations (expected/, which
tests/test_programs.py keeps equal to what `dp2ddp migrate` makes of input/) under torchrun
with two CPU (gloo) processes, through tests/e2e_driver.py.

figures_handed_loader_other_module (v3-A, hengyuan-hu/bottom-up-attention-vqa@3925206): the
entry hands its sharded loader to train() of train.py, whose epoch figures are sums over the
batches divided by the dataset's size, written by the program's own Logger. Before: rank 0
wrote its own half (train_loss 0.4006 for the original's 0.7691), no DP030. Now the sums are
reduced over the ranks in train.py, and rank 0 writes the original's lines.

factory_loader_per_branch (v3-B, thuml/Time-Series-Library@4e938a1's data_provider): one
DataLoader per branch of the factory, called through an experiment method for train, val and
test (the validation set two equal batches: its mean of batch means does not depend on its
shuffled order). Before: all three sharded as training data (the factory was not exported),
rank 0 printed the validation mean of its half and "test shape: (6, 1)" of 12, no warning.
Now the val and test calls pass ddp_shard=False (DP015) and every rank evaluates the whole
split; the training set is one global batch per epoch, so the weights, and every printed
figure, are the original's.

factory_sampler_eval_splits (v2-E, songyingxin/Bert-TextClassification@284b632's
convert_features_to_tensors): one factory of another module for train, dev and test, its
DataLoader with a sampler of its own (`sampler=RandomSampler(...)`, sharded by
DdpSamplerShard), the split choosing only `drop_last`. Before: every loader sharded, rank 0
printed dev and test counts of its half (3 of 6, 5 of 10), no warning. Now the factory is
exported as any training loader's, the dev and test calls pass ddp_shard=False (DP015), and
every rank counts all of dev and test.

factory_fixed_sample_batch (v2-C, akanimax/pro_gan_pytorch@6206613's sample grid): a fixed
batch taken once with `next(iter(make_loader(dataset, 8)))` from another module's factory.
Before: the factory's sharded loader gave rank 0 half the batch (the grid 4 rows of 8), no
warning. Now that call passes ddp_shard=False and the grid holds the original's 8 rows.

factory_tuple_eval_other_module (v3-H, fartashf/vsepp@abe382f's get_loaders): a function
returning two loaders of one factory (`train_loader, val_loader = loaders.pair(8)`), the
validation loader handed on to a third module that fills an array of the dataset's size at
each batch's indices. Before: both sharded, half the rows left zero on each rank, rank 0's
score another. Now the factory's call for that item passes ddp_shard=False (DP015) and no
row is left zero.

chunk_size_divided_figure (v3-B of stop 42, MILVLG/mcan-vqa@6b165e9's gradient accumulation):
each batch of a sharded loader cut into sub-batches of `sub = bs // accu`, the printed
per-sample loss `loss.item() / sub` of a summed loss. Before: the slices took this rank's
part of `sub`, the divisor did not, and rank 0 printed half the original's figure, no
warning. Now the divisor is `ddp_per_rank_batch(sub)` too (every sample alike: the
original's lines), the weights the original's.

Stop 43 (helper f), the loader leftovers of stop 42's round:

batch_mark_loader_class (v2-B, ruotianluo/ImageCaptioning.pytorch@4c48a33's epoch mark): the
training loop counts its epochs and leaves on the wrap mark the sampler puts in the batch's
items, the batch taken through another module's loader class. Before: only the rank whose
part held the marked item counted the epoch; rank 0 left after 5 steps, rank 1 died in the
next all-reduce ("Connection closed by peer"). Now the mark is read over the ranks
(`ddp_any_rank`): both ranks take the original's 5 steps.

loader_class_keyed_splits (found with v2-E of stop 42): a loader class keeping its loaders in
dicts keyed by split name. Before: `batches.get_batch("train")` was not followed to its
(sharded) loader and the batch was split again at the model call, each rank training on a
quarter of the global batch. Now no second split; the validation loader stays whole (DP015).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from test_examples import Launch, _assert_exited_cleanly, _assert_ran, _launch

PROGRAMS = Path(__file__).parent / "program_fixtures"
#: fixture -> entry
CASES = {
    "figures_handed_loader_other_module": "main.py",
    "factory_loader_per_branch": "run.py",
    "factory_sampler_eval_splits": "train.py",
    "factory_fixed_sample_batch": "train.py",
    "factory_tuple_eval_other_module": "train.py",
    "chunk_size_divided_figure": "train.py",
    "batch_mark_loader_class": "train.py",
    "loader_class_keyed_splits": "train.py",
}

pytestmark = pytest.mark.e2e


def _copy(kind: str, root: Path) -> list[Path]:
    scripts = []
    for name, entry in CASES.items():
        tree = root / name
        shutil.copytree(PROGRAMS / name / kind, tree, ignore=shutil.ignore_patterns("__pycache__"))
        scripts.append(tree / entry)
    return scripts


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Path], Launch]:
    root = tmp_path_factory.mktemp("v3_input")
    scripts = _copy("input", root)
    return scripts, _launch([sys.executable], root / "out", scripts)


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Path], Launch]:
    root = tmp_path_factory.mktemp("v3_expected")
    scripts = _copy("expected", root)
    prefix = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"]
    return scripts, _launch(prefix, root / "out", scripts)


def test_torchrun_exits_cleanly(migrated: tuple[list[Path], Launch]) -> None:
    scripts, ddp = migrated
    _assert_exited_cleanly(ddp, scripts)


@pytest.mark.parametrize("index", range(len(CASES)), ids=list(CASES))
def test_rank_zero_prints_the_originals_figures(
    original: tuple[list[Path], Launch], migrated: tuple[list[Path], Launch], index: int
) -> None:
    (befores, plain), (afters, ddp) = original, migrated
    before, after = befores[index], afters[index]
    _assert_ran(plain, before, 1)
    _assert_ran(ddp, after, 2)
    report = ddp.report(after, 2)
    assert not ddp.logs(after, 1), f"rank 1 printed; only rank 0 should\n{report}"
    want = plain.logs(before, 0).splitlines()
    assert want, plain.report(before, 1)
    assert ddp.logs(after, 0).splitlines() == want, report
    digests = [ddp.status(after, rank)["digest"] for rank in (0, 1)]  # type: ignore[index]
    assert digests[0] == digests[1] == plain.status(before, 0)["digest"], digests  # type: ignore[index]
