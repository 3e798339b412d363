"""Which calls draw from a process-wide random stream, and which leave it alone.

Each process of a DDP job advances its own copy of these streams, so a draw that names no
generator of its own differs between ranks unless the program seeds the stream alike. The
names are the facts the hazards pass (DP006), the shared-draws pass and the batch proof
(`batches/drawn.py`) read; they live here, below all three, so none imports another pass.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

import libcst as cst

from dp2ddp.facts import HelperDraw
from dp2ddp.transforms._support.names import INPLACE_RANDOM_FILLS
from dp2ddp.transforms._support.nodes import code_of
from dp2ddp.transforms.analysis.batch_noise import distribution_receivers

#: Library functions that draw from numpy's process-wide stream unless given a
#: `random_state` (scikit-learn's `check_random_state(None)` is `np.random`'s global
#: RandomState): a split or resample of a dataset drawn per process (zhutmost/lsq-net@1f644e9:
#: `train_test_split(indices, test_size=..., stratify=targets)` with numpy never seeded).
LIBRARY_DRAWS = frozenset(
    f"sklearn.{name}"
    for name in (
        "model_selection.train_test_split model_selection._split.train_test_split "
        "cross_validation.train_test_split utils.shuffle utils.resample"
    ).split()
)

#: Global-RNG draws: each process advances its own generator.
RANDOM_DRAWS = frozenset(
    [
        f"torch.{name}"
        for name in (
            "randn rand randint randperm normal bernoulli multinomial poisson "
            "rand_like randn_like randint_like"
        ).split()
    ]
    + [
        f"numpy.random.{name}"
        for name in (
            "rand randn randint random random_sample ranf sample choice permutation shuffle "
            "normal uniform beta binomial gamma exponential dirichlet lognormal laplace "
            "standard_normal multivariate_normal"
        ).split()
    ]
    + [
        f"random.{name}"
        for name in "random uniform randint randrange choice choices shuffle sample gauss "
        "normalvariate betavariate".split()
    ]
    + list(LIBRARY_DRAWS)
)


def own_stream(call: cst.Call) -> bool:
    """Whether a call of RANDOM_DRAWS leaves the process-wide streams alone: it names its
    generator (`generator=g`), a library draw is given its seed or generator
    (`random_state=0`; `random_state=None`, scikit-learn's default, is numpy's global
    stream), or it is told not to shuffle (`train_test_split(..., shuffle=False)`)."""
    for arg in call.args:
        if arg.keyword is None:
            continue
        key, value = arg.keyword.value, arg.value
        if key == "generator":
            return True
        if key == "random_state" and not (isinstance(value, cst.Name) and value.value == "None"):
            return True
        if key == "shuffle" and isinstance(value, cst.Name) and value.value == "False":
            return True
    return False


def shared_stream(call: cst.Call, names: set[str]) -> bool:
    """A draw of RANDOM_DRAWS from a stream `with ddp_same_random():` makes rank 0's on
    every rank: Python's `random`, numpy's global one, torch's CPU one. Not one given its
    own generator, nor a torch draw on a device (`torch.randperm(n, device=device)`: a
    GPU's generator, which the block does not share) unless the device is "cpu"."""
    if not names & RANDOM_DRAWS or own_stream(call):
        return False
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "device":
            value = arg.value
            return isinstance(value, cst.SimpleString) and value.evaluated_value == "cpu"
    return True


def in_same_random(node: cst.CSTNode, parent: Callable[[cst.CSTNode], cst.CSTNode | None]) -> bool:
    """`node` runs inside `with ddp_same_random():` (written by a pass of this run, or in a
    file migrated before): every rank draws rank 0's numbers there, so "each rank draws its
    own" (DP006) is false of it."""
    current = parent(node)
    while current is not None:
        if isinstance(current, cst.With) and any(
            isinstance(item.item, cst.Call)
            and isinstance(item.item.func, cst.Name)
            and item.item.func.value == "ddp_same_random"
            for item in current.items
        ):
            return True
        current = parent(current)
    return False


def fresh_fill(call: cst.Call) -> bool:
    """Whether `call` fills a tensor it has just built from the global generator
    (`torch.FloatTensor(B, 3, 1).uniform_(lo, hi)`, `x.new(n).normal_()`): a draw no
    qualified name shows. Only a receiver built by a call in the same expression counts: a
    fill of a held tensor (`m.weight.data.normal_(0, 0.01)`) is an initialisation, which
    analysis/reinit.py reads (mlvlab/PointWOLF@7011bac's `translate_pointcloud_batch`)."""
    func = call.func
    return (
        isinstance(func, cst.Attribute)
        and func.attr.value in INPLACE_RANDOM_FILLS
        and isinstance(func.value, cst.Call)
        and not own_stream(call)
    )


def module_distributions(
    module: cst.Module,
    qualified_names: Callable[[cst.CSTNode], set[str]],
    position: Callable[[cst.CSTNode], tuple[int, int]],
    text: str | None = None,
) -> dict[str, int]:
    """The module-level names bound only to a torch.distributions object
    (batch_noise.distribution_receivers), each with the line of its first binding. `text`:
    the module's source where the caller holds it (rendering the tree costs a walk)."""
    if "distributions" not in (module.code if text is None else text):
        return {}
    receivers = distribution_receivers(module, qualified_names)
    found: dict[str, int] = {}
    for statement in module.body:
        for line in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            if isinstance(line, cst.Assign | cst.AnnAssign):
                targets = line.targets if isinstance(line, cst.Assign) else [line]
                for target in targets:
                    name = code_of(target.target)
                    if name in receivers and "." not in name:
                        found.setdefault(name, position(line)[0])
    return found


def imported_distributions(module: cst.Module, exported: Collection[str]) -> set[str]:
    """The names `from M import R [as N]` binds at module level where `M.R.sample` is one
    of `exported` (other modules' drawing helpers, module_distributions': M's `R` is a
    torch.distributions object), so that `N.sample(...)` is read as its draw."""
    found: set[str] = set()
    for statement in module.body:
        for line in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            if not isinstance(line, cst.ImportFrom) or line.module is None or line.relative:
                continue
            if isinstance(line.names, cst.ImportStar):
                continue
            for alias in line.names:
                name = code_of(alias.name)
                if f"{code_of(line.module)}.{name}.sample" in exported:
                    found.add(code_of(alias.asname.name) if alias.asname else name)
    return found


def sampled_distribution(draw: HelperDraw | None) -> bool:
    """A draw module_distributions exported: `R.sample` of a torch.distributions object."""
    return draw is not None and draw.helper == draw.what and "." in draw.helper
