"""What partial_forward.py reads of one nn.Module class (ClassFacts), and a layer it may
leave without a gradient (PartialUse): their one home, read by the program's facts
(program/told.py) and a single file's (analysis/own_models.py)."""

from __future__ import annotations

from dataclasses import dataclass

from dp2ddp.transforms.analysis import handed_callables, module_parts, unproved_reach
from dp2ddp.transforms.analysis.dropped_outputs import DroppedOutput, Outputs


@dataclass(frozen=True)
class PartialUse:
    """`cls.attribute` may get no gradient in a step: `how` (at `line` of `path`)."""

    cls: str
    attribute: str
    how: str
    line: int
    path: str = ""

    def describe(self) -> str:
        where = f"{self.path}:{self.line}" if self.path else f"line {self.line}"
        return f"{self.cls}.forward() {self.how.format(attr=f'self.{self.attribute}')} ({where})"


@dataclass(frozen=True)
class ClassFacts:
    """One nn.Module class: its own partial uses, and the qualified names of the project
    classes its `__init__` builds."""

    #: (use, the project class the attribute holds: it counts only if that class is an
    #: nn.Module class of the program; "" for torch.nn layers and parameters), in order.
    partial: tuple[tuple[PartialUse, str], ...] = ()
    children: tuple[str, ...] = ()
    #: What forward() returns when every `return` is a tuple literal of one length: per
    #: element, the (attribute, holds) pairs of the registered layers that feed it (holds
    #: as in `partial`); None otherwise.
    outputs: Outputs | None = None
    #: Calls of its submodules whose result forward() drops in part.
    dropped: tuple[DroppedOutput, ...] = ()
    #: The layers `__init__` registers with parameters, the submodules forward() takes apart,
    #: and its methods (a caller taking it apart reaches these: module_parts.py).
    registered: frozenset[str] = frozenset()
    taken_apart: tuple[module_parts.TakenApart, ...] = ()
    methods: frozenset[str] = frozenset()
    #: "path:line: expression" where forward() compares its batch's rows with each other
    #: (analysis/batch_pairs.py), pools them (batch_axis.py, DP217); "" when it does not.
    pairs: str = ""
    pools: str = ""
    cuts: tuple[str, ...] = ()  #: rows cut by a batch size it holds (forward_cuts)
    #: Its methods that register parameters outside __init__, with a line (DP098).
    grows: tuple[tuple[str, int], ...] = ()
    several: str = ""  #: outputs `outputs` does not map (dropped_outputs.several_outputs)
    #: What forward() proves of its layers' reach (analysis/unproved_reach.py).
    reach: unproved_reach.Reach = unproved_reach.Reach()
    #: The submodule it wraps in DataParallel itself (analysis/part_wraps.py), "" if none.
    held_wrap: str = ""
    norms: bool = False  #: its __init__ builds a BatchNorm layer (norm_layers.py)
    #: Layers fed only to a callable forward() takes, and callables it hands its submodules
    #: (analysis/handed_callables.py).
    feeds: tuple[handed_callables.CallableFeed, ...] = ()
    handed: tuple[handed_callables.HandedCallable, ...] = ()
