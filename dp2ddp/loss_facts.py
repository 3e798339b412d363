"""What a program's modules tell each other of their losses (ProgramFacts, ModelClass): the
sums over the batch a loss class or function returns, the averaging meter classes, and what
a model class's forward() returns on each replica. Imports nothing of dp2ddp (facts.py's)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BatchSumReturn:
    """A sum over the batch among the additive terms a loss class's forward() or a function
    returns (hazards/batch_sum_returns.py): `position` the element of each returned tuple, a
    path into nested ones (`return total, (rec, kl)`: kl is (1, 1); (): the whole value),
    `params` the parameters it sums (position without `self`, name), `text` its code, `where`
    its "path:line"; `back` the path counted from each tuple's end (kl: (-1, -1)); `divided`:
    over a row's size (batch_terms.row_size), a batch sum only where dim 0 is the batch."""

    position: tuple[int, ...]
    params: tuple[tuple[int, str], ...]
    text: str
    where: str
    back: tuple[int, ...] = ()
    #: Where it returns what a told function or loss class returns (`return self.loss(a, b)`,
    #: stop 56 v4-D): its told name, resolved program-wide (batch_sum_returns.forwarded_sums);
    #: `passes`, per argument of that call: (position or -1, keyword or "", index in `params`).
    via: str = ""
    passes: tuple[tuple[int, str, int], ...] = ()
    divided: bool = False


@dataclass(frozen=True)
class MeterClass:
    """An averaging meter class of the program (transforms/data/meters.py proves it):
    `update`'s parameters (name, an integer default's text or None), each sum's terms (the
    parameters multiplied), each ratio (attribute, numerator sum, denominator sum); none of
    these where not proved. `running`: its methods adding to its attributes (DP030's)."""

    params: tuple[tuple[str, str | None], ...] = ()
    sums: tuple[tuple[str, tuple[str, ...]], ...] = ()
    ratios: tuple[tuple[str, str, str], ...] = ()
    running: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReplicaReturns:
    """What each value a model class's forward() returns is, on the replica that computes
    it (hazards/replica_means.py, read in the class's own module): MEAN ("") a loss over the
    replica's rows divided by their count or averaged over them, a reason where it is a
    quotient not proved either way, None where it is neither (a sum, the rows themselves: the
    caller's sum is over the batch). `stored` where every call of its wrap first stores
    each of `attrs` (`model.module.batch_size = x.shape[0]`: the rows of a tensor the call is
    given) on the model, `alone` where a call does not."""

    attrs: tuple[str, ...] = ()
    stored: str | None = None
    alone: str | None = None
