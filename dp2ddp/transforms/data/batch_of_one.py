"""A loader's global batch proved to be 1: it cannot be divided between the ranks (DP133).

Stop 50 (WenbinLee/DN4@440857b dataset/general_dataloader.py:538, `batch_size=
opt.episodeSize`, argparse `--episodeSize` `default=1` in Train_DN4.py): DataParallel's
batch size is the global batch, kept as `ddp_per_rank_batch(B)` per rank; for B = 1 every
rank loads 1 (the helper's floor), the global batch doubles and an epoch has half the steps.
Only the helper's run-time warning said so. Now said at migrate time where the batch size
is proved to be 1:

- a literal 1, or a name every binding of which the def-use view follows to the constant 1
  (flow.origins: only constant sources, each 1); where one is the default of a parameter of
  a function another module of the program may call, the text says so (such a call may
  pass another value: this module sees only its own calls);
- `X.name` where the program declares an argparse option whose
  destination is `name` (ProgramFacts.command_line: the options defaulting to 1 a module
  building a DataLoader names; a single file: its own `add_argument`s),
  every such declaration defaults to the constant 1, and no statement of this module stores
  to `.name`: 1 unless the command line gives another (the text says so).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import Origin, origins, view
from dp2ddp.transforms._support.nodes import walk
from dp2ddp.transforms.analysis.command_line import declared

if TYPE_CHECKING:
    from dp2ddp.transforms.data.batch_size import LoaderBatchSize


def said_batch_of_one(t: LoaderBatchSize, value: cst.BaseExpression) -> None:
    """DP133 at a loader's `batch_size=value` made `ddp_per_rank_batch(value)`, where
    value is proved to be 1 (module docstring)."""
    why = _proved_one(t, value)
    if why is None:
        return
    default = why.startswith(_DEFAULT)  # said for the calls that leave the parameter out
    t.warn(
        value,
        "DP133",
        f"batch_size={t.code(value)} is 1 "
        + (why.removeprefix(_DEFAULT).partition("; ")[0] if default else f"({why})")
        + ": ddp_per_rank_batch cannot load less than 1, so each rank loads 1 sample, the "
        "global batch is WORLD_SIZE samples instead of the original's 1 and an epoch has "
        "1/WORLD_SIZE of its steps" + (f"; {why.partition('; ')[2]}" if default else ""),
    )


def _proved_one(t: LoaderBatchSize, value: cst.BaseExpression) -> str | None:
    if isinstance(value, cst.Integer):
        return "a literal" if value.evaluated_value == 1 else None
    if isinstance(value, cst.Name):
        found = origins(view(t._module_node), value)
        if found and all(
            o.kind == "constant" and isinstance(o.node, cst.Integer) and o.node.evaluated_value == 1
            for o in found
        ):
            return _through_defaults(t, found) or "every binding it reads is the constant 1"
    if not isinstance(value, cst.Attribute) or _stored(t, name := value.attr.value):
        return None
    told = t.state.facts.command_line  # a program's (told.py), else this module's own
    line = told if told is not None else declared(t.state.text, t.context.filename or "")
    arguments = line.arguments
    options = [a for a in arguments if a.dest == name]
    if not options or not all(a.default == 1 for a in options):
        return None
    first = min(options, key=lambda a: (a.path, a.line))
    where = f"{os.path.basename(first.path) or first.path}:{first.line}"
    return (
        f"the default of {'/'.join(first.options)}, declared at {where}: unless the command "
        "line gives 2 or more"
    )


def _through_defaults(t: LoaderBatchSize, found: list[Origin]) -> str | None:
    """Where a 1 is a parameter's default of a top-level function another module of the
    program may call (the module is imported and the function named elsewhere): the text
    says both, the default and that such a call passes its own value, which this module
    does not see (bridgeqiqi/DIP2021-FinalPJbaseline@6c8f3a2: `batch_size=1` of a loader
    factory main.py calls with `batch_size=args.train_batch`; the text said "every binding
    it reads is the constant 1", stop 53 v2). None where no origin is such a default."""
    hints = t.state.facts.hints
    if not hints.imported:
        return None
    defaults = {
        id(param.default): (function, param)
        for function in t._module_node.body
        if isinstance(function, cst.FunctionDef) and function.name.value not in hints.unused
        for param in (*function.params.params, *function.params.kwonly_params)
        if param.default is not None
    }
    used = [defaults[id(o.node)] for o in found if id(o.node) in defaults]
    if not used:
        return None
    function, param = used[0]
    line = t.input_position(function)[0]
    name = param.name.value
    return (
        f"{_DEFAULT}where a call of {function.name.value}() leaves {name} out (its default, "
        f"line {line}); a call from another module that passes {name} gives its own value "
        "instead, which this module does not see: check what yours pass"
    )


#: How `_through_defaults`'s answer begins (a text said for some calls, not proved for all).
_DEFAULT = "default: "


def _stored(t: LoaderBatchSize, name: str) -> bool:
    """A statement of the module assigns `.name` (`opt.episodeSize = 4`)."""
    for node in walk(t._module_node):
        targets: list[cst.BaseExpression] = []
        if isinstance(node, cst.Assign):
            targets = [a.target for a in node.targets]
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            targets = [node.target]
        for target in targets:
            for n in walk(target):
                if isinstance(n, cst.Attribute) and n.attr.value == name:
                    return True
    return False
