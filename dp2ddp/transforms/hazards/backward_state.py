"""The state DP026's reading keeps (hazards/backward.py): the flow through one function's
statements, the summaries of functions a caller applies, the sites found."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import libcst as cst

from dp2ddp.facts import BackwardSummary

Matches = Callable[[cst.CSTNode, frozenset[str]], bool]


@dataclass(frozen=True)
class ForeignSite:
    """A forward or backward call in another module (a BackwardSummary's site)."""

    path: str
    line: int
    text: str


#: A forward or backward call: this module's node, or another module's site.
Site = cst.Call | ForeignSite


class Foreign(Protocol):
    """The summaries of other modules' functions (ProgramFacts.backward_summaries), found
    by the qualified names of what a call names (backward_program.py)."""

    def function(self, func: cst.BaseExpression) -> BackwardSummary | None: ...

    def cls(self, func: cst.BaseExpression) -> str | None: ...

    def method(self, cls: str, name: str) -> BackwardSummary | None: ...


#: Methods whose result carries no autograd graph (a size read of an output: labels sized
#: `torch.zeros(fake.size(0), 1)` for a critic given `cat([real, fake.detach()])`).
_GRAPHLESS = frozenset({"detach", "item", "tolist", "numpy", "size", "dim", "numel"})
#: Attributes that carry no graph: `.data`, a shape.
_GRAPHLESS_ATTRIBUTES = frozenset({"data", "shape", "ndim", "device", "dtype"})
_AUTOGRAD_BACKWARD = frozenset({"torch.autograd.backward"})


@dataclass
class _Flow:
    #: name (or `self.x`) -> the forwards (ids of their call nodes) whose outputs it holds.
    carries: dict[str, frozenset[int]] = field(default_factory=dict)
    #: forward -> backward passes through its outputs so far.
    backwards: dict[int, int] = field(default_factory=dict)
    #: wrapped model -> (backward passes through its forwards since its latest forward,
    #: the forward the first of them went through).
    since: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: wrapped model -> its latest forward.
    latest: dict[str, int] = field(default_factory=dict)
    #: forwards made since this flow was copied (a branch's own: a loop's body is read
    #: twice, and the other branch's count of one is its previous pass's)
    made: set[int] = field(default_factory=set)

    def copy(self) -> _Flow:
        return _Flow(dict(self.carries), dict(self.backwards), dict(self.since), dict(self.latest))

    def merge(self, other: _Flow) -> None:
        """After an if/else: either branch ran (names: either value; counts: the larger,
        but the count of the branch that made a forward where only one did)."""
        for name, forwards in other.carries.items():
            self.carries[name] = self.carries.get(name, frozenset()) | forwards
        for forward, count in other.backwards.items():  # before self.made grows
            if (forward in other.made) == (forward in self.made):
                self.backwards[forward] = max(self.backwards.get(forward, 0), count)
            elif forward in other.made:
                self.backwards[forward] = count
        for model in {*self.latest, *other.latest, *other.since}:
            here, there = self.latest.get(model), other.latest.get(model)
            if (here in self.made) != (there in other.made):  # one branch forwards it
                if there in other.made:
                    self.since.pop(model, None)
                    if model in other.since:
                        self.since[model] = other.since[model]
                    self.latest[model] = there
                continue
            if model in other.since:
                count, first = other.since[model]
                if count > self.since.get(model, (0, first))[0]:
                    self.since[model] = (count, first)
            if there is not None:
                self.latest.setdefault(model, there)
        self.made |= other.made


@dataclass(frozen=True)
class SecondBackward:
    """A backward call that is the second through the outputs of `forward` or, when
    `earlier` is set, the second through forwards of one wrapped model since its latest
    forward (`earlier`: the forward the first backward went through). `inner`: the backward
    inside the function that `backward` (then a call of it) runs."""

    backward: cst.Call
    forward: Site
    earlier: Site | None = None
    inner: Site | None = None
    #: the wrapped model as the caller spells it (a helper's parameter given `D`: `D`)
    model: str = ""


#: At most this many backwards through a function's inputs are kept in its summary (two
#: through one model are what DP026 needs; the cap keeps nested calls linear).
_KEPT_INPUT_BACKWARDS = 4


@dataclass(frozen=True)
class _Summary:
    """What a call of one function does to its caller's flow (see the module docstring)."""

    #: placeholder forward -> the parameter name or `self.` attribute it stands for.
    inputs: dict[int, str]
    #: wrapped model (as spelled inside) -> (backwards since its latest forward there, the
    #: forward the first of them went through, the latest forward).
    forwards: dict[str, tuple[int, int, int]]
    #: backwards through inputs, in order: (the forwards carried, the backward call).
    input_backwards: tuple[tuple[frozenset[int], Site], ...]
    returns: frozenset[int]
    #: per element, where every return is a tuple of one length (`return g_loss, d_loss`)
    items: tuple[frozenset[int], ...] | None
    attributes: dict[str, frozenset[int]]
    #: backward passes so far through each forward the return value or attributes carry.
    backwards: dict[int, int]


_EMPTY = _Summary({}, {}, (), frozenset(), None, {}, {})
#: Loops nested this deep are read twice each (the rest once: the reading stays linear).
_LOOP_READS = 3


@dataclass
class _Frame:
    """One function being read: its class (for `self.m`), its locals bound to a class of
    the module (for `v.m`), its inputs, the backwards through them."""

    cls: str | None
    instances: dict[str, str]
    #: its parameters (not `self`): a call of one is a forward of `@name`, a model the
    #: caller may pass (a wrapped one: that model's forward there)
    params: frozenset[str] = frozenset()
    inputs: dict[int, str] = field(default_factory=dict)
    input_backwards: list[tuple[frozenset[int], Site]] = field(default_factory=list)
    returns: frozenset[int] = frozenset()
    #: per element of the tuples returned; () before any return, None when they differ
    items: tuple[frozenset[int], ...] | None = ()
