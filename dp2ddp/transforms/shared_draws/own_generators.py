"""A Dataset's own seeded generator drawn per sample: every rank draws the same sequence.

`self.rng = np.random.RandomState(seed)` in `__init__`, then `self.rng.randint(...)` in
`__getitem__` for a random crop, or handed to a helper that draws from it (`cut_padding(x,
n, self.random)`: round 34, sweetcocoa/DeepComplexUNetPyTorch@c68510a's dataset; repro:
rank 0 and rank 1 both cropped at [44, 47, 0, 3]). DataParallel's one process drew the
global batch's samples one after the other from that generator; migrated, each rank
builds the dataset with the same seed, so rank r's k-th sample gets every rank's k-th draw.
DP067 said it for the process-wide generators (dataset_draws.py) and nothing for an object
the dataset holds. A generator made without a seed draws from the system's entropy, apart on
each rank, and a seed that names the rank differs: neither is said.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import libcst as cst

from dp2ddp.transforms._support.nodes import code_of, walk
from dp2ddp.transforms.analysis.guards import mentions_rank

if TYPE_CHECKING:
    from dp2ddp.transforms.shared_draws.dataset_draws import DatasetDrawFinder

#: Constructors of a generator object seeded by their first argument.
_SEEDED: Final = frozenset(
    {
        "numpy.random.RandomState",
        "numpy.random.default_rng",
        "numpy.random.Generator",
        "random.Random",
    }
)
#: Methods of a generator that draw nothing.
_STATE: Final = frozenset(
    {"seed", "get_state", "set_state", "getstate", "setstate", "bit_generator"}
)


def own_generator_draw(
    finder: DatasetDrawFinder,
    cls: cst.ClassDef,
    methods: dict[str, cst.FunctionDef],
    name: str,
    call: cst.Call,
) -> bool:
    """DP067 at `call` (in per-sample method `name`) where it draws from a generator the
    class's `__init__` made with a seed alike on every rank (see the module's docstring);
    whether it did."""
    func = call.func
    if "__init__" not in methods:
        return False
    init = methods["__init__"]
    if (
        isinstance(func, cst.Attribute)
        and func.attr.value not in _STATE
        and isinstance(func.value, cst.Attribute)
        and code_of(func.value.value) == "self"
        and (made := _seeded_generator(finder, init, func.value.attr.value)) is not None
    ):
        how = f"{code_of(func)}() in {cls.name.value}.{name}() draws from"
    else:  # handed to a function that draws from it: `cut_padding(x, n, self.random)`
        handed = [
            (arg.value, made)
            for arg in call.args
            if isinstance(arg.value, cst.Attribute)
            and code_of(arg.value.value) == "self"
            and (made := _seeded_generator(finder, init, arg.value.attr.value)) is not None
        ]
        if not handed:
            return False
        given, made = handed[0]
        how = f"{code_of(func)}() in {cls.name.value}.{name}() is handed `{code_of(given)}`,"
    finder.t.warn(
        call,
        "DP067",
        f"{how} the dataset's own generator, `{code_of(made)}` seeded alike on every "
        "rank: rank r's k-th sample gets every rank's k-th draw",
    )
    return True


def _seeded_generator(
    finder: DatasetDrawFinder, init: cst.FunctionDef, attr: str
) -> cst.BaseExpression | None:
    """The value of `self.<attr> = <seeded generator>` in `__init__`, the only binding of
    that attribute there; None otherwise."""
    values = [
        node.value
        for node in walk(init.body, skip_scopes=True)
        if isinstance(node, cst.Assign)
        for target in node.targets
        if isinstance(target.target, cst.Attribute)
        and code_of(target.target.value) == "self"
        and target.target.attr.value == attr
    ]
    if len(values) != 1 or not isinstance(call := values[0], cst.Call) or not call.args:
        return None
    if not finder.t.qualified_names(call.func) & _SEEDED or mentions_rank(call.args[0].value):
        return None
    return call
