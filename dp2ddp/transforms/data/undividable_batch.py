"""A loader's global batch proved to be a constant no even WORLD_SIZE divides (DP133, DP184).

Stop 50 (WenbinLee/DN4@440857b dataset/general_dataloader.py:538, `batch_size=
opt.episodeSize`, argparse `--episodeSize` `default=1` in Train_DN4.py): DataParallel's
batch size is the global batch, kept as `ddp_per_rank_batch(B)` per rank; for B = 1 every
rank loads 1 (the helper's floor), the global batch doubles and an epoch has half the steps.
Stop 56 (dragen1860/LearningToCompare-Pytorch@be5fbbe train.py:21, `batchsz = 3`, r4-A of
stop 55): an odd B > 1 that DataParallel scattered 2+1 becomes B // WORLD_SIZE = 1 per rank
on 2 ranks: the global batch 2, an epoch 3 steps for 2. Only the helper's run-time warning
said either. Now said at migrate time where the batch size is proved to be such a constant
(DP133 for 1; DP184 for an odd B > 1: no even WORLD_SIZE, the 2, 4 or 8 GPUs DataParallel
ran on, divides it; an even B that 4 or 8 do not divide is left to the run-time warning,
which names the WORLD_SIZE: on 2 processes it divides, and a code would fail `--check` for
a run that keeps the batch):

- a literal, or a name every binding of which the def-use view follows to the same integer
  constant (flow.origins: only constant sources); where one is the default of a parameter
  of a function another module of the program may call, the text says so (such a call may
  pass another value: this module sees only its own calls);
- `X.name` where the program declares an argparse option whose
  destination is `name` (ProgramFacts.command_line: the options a module building a
  DataLoader names whose default no even WORLD_SIZE divides; a single file: its own
  `add_argument`s), every such declaration defaults to the same integer constant, and no
  statement of this module stores to `.name`: that value unless the command line gives
  another (the text says so).

Kept as B // WORLD_SIZE per rank rather than DataParallel's uneven shares (2+1): DDP
averages the ranks' gradients with equal weights, so shares of 2 and 1 weigh the samples
1/4, 1/4, 1/2 where DataParallel's mean over the gathered batch weighed each 1/3; equal
weights again need each rank's loss scaled by WORLD_SIZE * n_rank / B, right only for a
loss that is a mean over the batch (docs/real-world.md, stop 56 s3).
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


def said_undividable_batch(
    t: LoaderBatchSize, value: cst.BaseExpression, trains: bool = True
) -> None:
    """DP133 or DP184 at a loader's `batch_size=value` made `ddp_per_rank_batch(value)`,
    where value is proved to be 1 or an odd number above 1 (module docstring). DP184 only
    where the loader trains: an evaluation loader's slice per rank (ddp_eval_sampler) is
    every sample once, and its batch only groups them for figures DP030 and DP015 speak of
    (a validation loader of 33, data_trainer_class)."""
    proved = _proved_constant(t, value)
    if proved is None:
        return
    size, why = proved
    if size != 1 and not (trains and size > 1 and size % 2):
        return
    default = why.startswith(_DEFAULT)  # said for the calls that leave the parameter out
    said = why.removeprefix(_DEFAULT).partition("; ")[0] if default else f"({why})"
    calls = f"; {why.partition('; ')[2]}" if default else ""
    if size == 1:
        t.warn(
            value,
            "DP133",
            f"batch_size={t.code(value)} is 1 {said}: ddp_per_rank_batch cannot load less "
            "than 1, so each rank loads 1 sample, the global batch is WORLD_SIZE samples "
            "instead of the original's 1 and an epoch has 1/WORLD_SIZE of its steps" + calls,
        )
        return
    t.warn(
        value,
        "DP184",
        f"batch_size={t.code(value)} is {size} {said}: DataParallel scattered all {size} "
        f"samples of a step ({-(-size // 2)}+{size // 2} on 2 GPUs); no even WORLD_SIZE "
        f"divides {size}, so ddp_per_rank_batch loads {size} // WORLD_SIZE per rank "
        f"({size // 2} on 2 processes): the global batch is {2 * (size // 2)} instead of the "
        f"original's {size} and an epoch takes more steps (said before only by the helper's "
        "run-time warning)" + calls,
    )


def _proved_constant(t: LoaderBatchSize, value: cst.BaseExpression) -> tuple[int, str] | None:
    """The integer `value` is proved to be, and how (a literal, the constant every binding
    reads, an argparse default), or None."""
    if isinstance(value, cst.Integer):
        number = value.evaluated_value
        return (number, "a literal") if isinstance(number, int) else None
    if isinstance(value, cst.Name):
        found = origins(view(t._module_node), value)
        constants = [
            o.node.evaluated_value
            for o in found
            if o.kind == "constant" and isinstance(o.node, cst.Integer)
        ]
        if not found or len(constants) != len(found) or len(set(constants)) != 1:
            return None
        if _uncalled_default(t, found):
            return None
        number = constants[0]
        return number, (
            _through_defaults(t, found) or f"every binding it reads is the constant {number}"
        )
    if not isinstance(value, cst.Attribute) or _stored(t, name := value.attr.value):
        return None
    told = t.state.facts.command_line  # a program's (told.py), else this module's own
    line = told if told is not None else declared(t.state.text, t.context.filename or "")
    options = [a for a in line.arguments if a.dest == name]
    defaults = {a.default for a in options}
    if not options or len(defaults) != 1:
        return None
    (default,) = defaults
    if not isinstance(default, int) and default != 1:  # 1.0 reads as 1, not 3.0
        return None
    number = int(default or 0)
    first = min(options, key=lambda a: (a.path, a.line))
    where = f"{os.path.basename(first.path) or first.path}:{first.line}"
    unless = "2 or more" if number == 1 else "a batch size WORLD_SIZE divides"
    return number, (
        f"the default of {'/'.join(first.options)}, declared at {where}: unless the command "
        f"line gives {unless}"
    )


def _uncalled_default(t: LoaderBatchSize, found: list[Origin]) -> bool:
    """An origin is a parameter's default of a function (or class) nothing in the module
    calls, nor another module may (`_through_defaults`): the code may never run, and
    whoever calls it may pass their own value (round 39, tomguluson92/StyleGAN_PyTorch@
    4fd0711: a loader class never built, its `batch_size=1` default read as the batch:
    a false DP133 and DP011)."""
    flow = view(t._module_node)
    for origin in found:
        param = flow.parent(origin.node)
        if not isinstance(param, cst.Param) or param.default is not origin.node:
            continue
        function = flow.function_around(param)
        if function is not None and not flow.call_sites(function):
            return _through_defaults(t, [origin]) is None
    return False


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
