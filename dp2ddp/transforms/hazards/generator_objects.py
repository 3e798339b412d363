"""Generator objects the program builds and draws from by their methods (`rng.beta(a, a)`
of `np.random.RandomState(1234)`): every process holds its own. Moved out of draws.py at
stop 71 (its length); draws.py's HelperDraws reads them for DP006.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import libcst as cst

from dp2ddp.flow import DefUse, origins
from dp2ddp.transforms._support.nodes import name_of
from dp2ddp.transforms.analysis.random_draws import RANDOM_DRAWS

QualifiedNames = Callable[[cst.CSTNode], set[str]]

#: Constructors of a generator object the program holds (`self.random_state =
#: np.random.RandomState(seed)`, `rng = np.random.default_rng(0)`, `random.Random(1)`).
GENERATORS = frozenset(
    {
        "numpy.random.RandomState",
        "numpy.random.default_rng",
        "numpy.random.Generator",
        "numpy.random.mtrand.RandomState",
        "random.Random",
    }
)

#: Methods of such an object that draw (numpy's `RandomState`/`Generator`, `random.Random`).
GENERATOR_DRAWS = frozenset(
    name.rsplit(".", 1)[1] for name in RANDOM_DRAWS if not name.startswith("torch.")
) | frozenset({"integers", "standard_normal", "triangular", "vonmisesvariate"})


def builds_generators(calls: Iterable[cst.Call], qualified_names: QualifiedNames) -> bool:
    """Whether a module whose calls are `calls` builds a generator object of GENERATORS
    (read once per module: generator_draw's origins stay in the module, so a module that
    builds none has no such draw to find, and neither its def-use view nor a walk is made
    for it)."""
    tails = {name.rsplit(".", 1)[1] for name in GENERATORS}
    return any(
        name_of(call.func) in tails and bool(qualified_names(call.func) & GENERATORS)
        for call in calls
    )


def generator_draw(
    flow: DefUse | None, call: cst.Call, qualified_names: QualifiedNames
) -> cst.Call | None:
    """The constructor of the generator object `call` draws from, where it is one the program
    builds (stop 48, v3-A, qiuqiangkong/panns_transfer_to_gtzan@af501a8: `Mixup.get_lambda(n)`
    draws `self.random_state.beta(...)` per pair of samples from `np.random.RandomState(1234)`):
    a method of GENERATOR_DRAWS on a receiver the def-use view's origins find built by a
    constructor of GENERATORS and carried only by bindings (names, attributes, parameters).
    Each process holds its own such object: seeded alike, every rank draws the same values,
    the first of the sequence DataParallel's one process drew; seeded apart, others."""
    func = call.func
    if flow is None or not (isinstance(func, cst.Attribute) and func.attr.value in GENERATOR_DRAWS):
        return None
    for origin in origins(flow, func.value):
        node = origin.node
        if (
            origin.kind == "call"
            and isinstance(node, cst.Call)
            and qualified_names(node.func) & GENERATORS
            and all(
                isinstance(step.node, (cst.Name, cst.Attribute, cst.Param)) and not step.cut
                for step in origin.path[1:]
            )
        ):
            return node
    return None


def handed_generators(flow: DefUse | None, call: cst.Call) -> str | None:
    """Where the receiver of `call`, a draw from a generator object the program builds
    (generator_draw), may also be a value a method is handed (zczcwh/PoseFormer@a908b29
    common/generators.py: `set_random_state(self, random): self.random = random`, called on
    resume with a state read from a checkpoint): `` `set_random_state()`'s `random` ``, the
    parameters the def-use view's origins reach that no call of the module binds; else None.
    Its seed is not followed: the text names it rather than calling the object's seed the
    constructor's alone."""
    func = call.func
    if flow is None or not isinstance(func, cst.Attribute):
        return None
    handed = []
    for origin in origins(flow, func.value):
        if origin.kind == "parameter" and isinstance(origin.node, cst.Param):
            function = flow.function_around(origin.node)
            owner = f"`{function.name}()`'s " if function is not None else ""
            handed.append(f"{owner}`{origin.node.name.value}`")
    return " or ".join(dict.fromkeys(handed)) or None


def seeded_alike(source: str | None) -> bool:
    """`source`, the constructor of a generator object a batch iterator draws from
    (facts.HelperDraw.source), seeds it with constants only (`random.Random(1)`,
    `np.random.RandomState(1234)`): every rank builds it alike and draws the batches
    DataParallel's one process drew, which the batch pass splits, each rank taking its
    part (round 38, lonePatient/cw2vec-pytorch@c38cc16's shape: a false DP006). No
    argument (seeded from the system's entropy) or any other value: not shown alike."""
    if source is None:
        return False
    try:
        built = cst.parse_expression(source)
    except cst.ParserSyntaxError:
        return False
    return (
        isinstance(built, cst.Call)
        and bool(built.args)
        and all(
            not a.star and isinstance(a.value, (cst.Integer, cst.Float, cst.SimpleString))
            for a in built.args
        )
    )
