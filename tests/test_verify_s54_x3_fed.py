"""Stop 54 x3 (v4-F of round 7): validation batches run with gradients on are not training
input (kathrinse/TabSurvey@454b8b2: fit()'s early-stopping loop, no `no_grad`, no `eval()`).

verify counted them as the window's loaded samples; the migration leaves the validation
loader whole on every rank, so the next step's samples showed as "ranks overlap ...
TensorDataset does not return one sample per index" on a right migration. fed.py keeps only
the batches whose forwards a backward reached. Driven here with real forwards and backwards
of a small model on the recorder's Window, no launch (own minimal program:
/work/fresh18/x3_54/valgrad/prog/train.py, docs/real-world.md)."""

from __future__ import annotations

import torch
from test_verify_time_major import _record
from torch import nn

from dp2ddp.verify.digest import sample_digests
from dp2ddp.verify.fed import FedBatches
from dp2ddp.verify.recorder import Window
from dp2ddp.verify.records import RankRecord
from dp2ddp.verify.sharding import OK, check_sharding

X = torch.arange(24, dtype=torch.float32).reshape(8, 3) + 1


def _load(fed: FedBatches, window: Window, rows: torch.Tensor) -> None:
    fed.loaded(window, sample_digests(rows), sample_digests(rows.t()), 0)


def _window(backward_train: bool = True) -> Window:
    """Validation (rows 4..7: two batches, forwards with gradients on, no backward), then a
    training batch (rows 0..3) whose loss is back-propagated unless told not to."""
    model, fed, window = nn.Linear(3, 1), FedBatches(), Window(1)
    for part in (X[4:6], X[6:8]):
        _load(fed, window, part)
        fed.forward(model(part))
    _load(fed, window, X[:4])
    out = model(X[:4])
    fed.forward(out)
    if backward_train:
        out.sum().backward()
    fed.close(window)
    return window


def test_validation_batches_are_dropped_from_the_step() -> None:
    window = _window()
    assert window.loaded == sample_digests(X[:4])
    assert window.loaded_dim1 == sample_digests(X[:4].t())
    assert window.loaded_split == [0]


def test_nothing_dropped_where_no_backward_was_seen() -> None:
    """No forward of the window reached by a backward (the hooks saw none): all kept."""
    window = _window(backward_train=False)
    assert window.loaded == sample_digests(X[4:8]) + sample_digests(X[:4])


def test_batches_read_before_one_forward_are_kept() -> None:
    """Two loaders read before one forward (a pair of batches): both fed the update; the
    forward's output a tuple, the loss on its second tensor only."""

    class Pair(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(3, 1)

        def forward(self, a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, ...]:
            return self.fc(a), self.fc(b)

    model, fed, window = Pair(), FedBatches(), Window(1)
    _load(fed, window, X[:2])
    _load(fed, window, X[2:4])
    out = model(X[:2], X[2:4])
    fed.forward(out)
    out[1].sum().backward()
    fed.close(window)
    assert window.loaded == sample_digests(X[:2]) + sample_digests(X[2:4])


def test_a_validation_loader_every_rank_reads_whole_is_not_an_overlap() -> None:
    """The sharding check on what is kept: each rank's training half (2+2 of 4), the
    validation batches gone on every run."""

    def run(train: torch.Tensor) -> list[str]:
        model, fed, window = nn.Linear(3, 1), FedBatches(), Window(1)
        _load(fed, window, X[4:8])  # the whole validation loader, on every run
        fed.forward(model(X[4:8]))
        _load(fed, window, train)
        out = model(train)
        fed.forward(out)
        out.sum().backward()
        fed.close(window)
        return window.loaded

    def record(rank: int, loaded: list[str]) -> RankRecord:
        made = _record(rank, [[1]], 0)
        made.data["windows"] = [{"index": 1, "inputs": {}, "loaded": loaded}]
        return made

    original = record(0, run(X[:4]))
    ranks = [record(0, run(X[:2])), record(1, run(X[2:4]))]
    result = check_sharding(original, ranks, 1)
    assert result.status == OK, result.describe()
    assert result.steps[0].per_rank == (2, 2)
