"""A Dataset's transform that is a function of the program which draws per sample (DP067).

dataset_draws.py reads `self.transform(sample)` in `__getitem__` against the transform
classes of its module (a `__call__` that draws). A transform as often is a lambda or a
function handed to the dataset's constructor (`Images(8, transform=dequant)`, `dequant =
lambda x: x + torch.zeros_like(x).uniform_(0, 1 / 256)`: pclucas14/pytorch-glow's
dequantization noise, round 20 of issue 28): followed through the def-use view
(flow.origins of `self.transform`: the attribute's binding, the constructor's parameter, the
argument each construction passes) to the function or lambda it holds, whose body draws from
a process-wide stream every rank seeds alike: rank r's k-th sample gets every rank's k-th
draw, as for a transform class. The same where the dataset is a library's
(`datasets.CIFAR10(root, transform=tf)`, `tf = transforms.Compose([transforms.ToTensor(),
lambda x: x + torch.zeros_like(x).uniform_(0, 1 / 256)])`: pytorch-glow itself): the
program's own function or lambda among the transforms it hands a dataset's construction
(`transform=`, `target_transform=`, `transforms=`, through a Compose's list) draws per
sample all the same (handed_transforms).

The same for an object of the program whose call draws (round 23, problem A, imtiazziko/
LaplacianShot@5de2612: `ImageJitter`, defined in another module than the Dataset, drawing
`torch.rand` per call, built by the training script and handed to the dataset in a
`Compose([...])`): `Jitter()`, a name bound to one, a module-level object of another
module (`jitter.JITTER`), by keyword or by position, asked of HelperDraws.of_value through
the program's drawing helpers (program/callable_draws.py tells `module.Jitter.__call__`).
Where the dataset's class is this module's, its `self.transform(x)` is followed to the
object each construction here hands (drawing_callable); else the construction is said.

A function or lambda draws also through the functions of the program it calls (round 25,
kuangliu/torchcv@6291f3e examples/retinanet/train.py: `transform=transform_train`, which
calls torchcv.transforms' `random_flip`, drawing `random.random()`), asked of
HelperDraws.of_call as the training loop's draws are (this module's functions followed in
turn, another module's by ProgramFacts.draws); a function of another module handed itself
(`transform=random_flip`) is asked of HelperDraws.of_function. A chain that draws nothing
is said nothing.

What a construction is handed is followed on the def-use view, not by its spelling (stop 73,
round 25, TengdaHan/MemDPC: the program's augmentations in a torchvision Compose built in
main(), handed through `get_data(transform, mode)` to `UCF101Dataset(transform=transform)`;
the Compose's list was read only where it was written in the argument or bound beside it):
each source flow.origins finds for the argument, through bindings, a helper's parameter
(its call sites), list elements and a library composer's list (_carried), is asked as
above. A function handed by any argument to a Dataset class of the program (another
module's: `Scaled(8, jitter)`, its own per-sample hook) draws per sample as a transform
does; a sharded loader's `collate_fn=` that draws (a per-sample crop or jitter as the batch
is collated) draws each rank's k-th batch alike (handed_collates). A value the view cannot
follow (built by another module's function, read from a table) is not said.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

import libcst as cst

from dp2ddp.facts import HelperDraw
from dp2ddp.flow import DefUse, Origin, origins, view
from dp2ddp.transforms._support.nodes import code_of, name_of, walk
from dp2ddp.transforms.analysis.batch_noise import PER_RANK_BATCH
from dp2ddp.transforms.analysis.random_draws import RANDOM_DRAWS, fresh_fill, own_stream
from dp2ddp.transforms.analysis.sample_code import COMPOSERS
from dp2ddp.transforms.analysis.seeded_streams import stream_of

if TYPE_CHECKING:
    from dp2ddp.transforms.shared_draws import ShareDatasetDraws


class Finder(Protocol):
    """What the dataset-draws finder lends these readings (dataset_draws.DatasetDraws)."""

    @property
    def module(self) -> cst.Module: ...

    @property
    def t(self) -> ShareDatasetDraws: ...

    def alike(self, stream: str | None) -> bool: ...

    def describe(self, helper: HelperDraw) -> str: ...


def drawing_callable(finder: Finder, func: cst.Attribute) -> list[tuple[str, str | None]]:
    """(what draws, its stream) for the first draw of each function, lambda or object of
    the program `func` (the attribute a per-sample method calls) may hold, from a
    process-wide stream every rank seeds alike (`finder.alike`; a fill of a tensor just
    built, `zeros_like(x).uniform_()`, draws from torch's): an object built here and
    handed in, `Jitter()` or a `Compose([...])` of such, is asked of object_draw."""
    module = finder.module
    flow = view(module)
    found: list[tuple[str, str | None]] = []
    for origin in origins(flow, func):
        body = origin.node
        if origin.kind in ("call", "instance") and isinstance(body, cst.Call):
            drawn = _parts_draw(finder, flow, body)
            if drawn is not None:
                found.append((f"{code_of(func)} = {drawn[0]}", drawn[1]))
        if origin.kind == "import":  # a function of another module: `transform=random_flip`
            drawn = _imported_draw(finder, origin)
            if drawn is not None:
                found.append((f"{code_of(func)} = {drawn[0]}", drawn[1]))
        if origin.kind != "definition" or not isinstance(body, (cst.Lambda, cst.FunctionDef)):
            continue
        drawn = _draw_in(body, finder)
        if drawn is not None:
            found.append((f"{code_of(func)} = {_shown(body)}: {drawn[0]}", drawn[1]))
    return found


def _imported_draw(finder: Finder, origin: Origin) -> tuple[str, str | None] | None:
    """(what draws, its stream) where the name an import binds, as the flow from `origin`
    spells it (the argument a construction passes), is a function of another module of
    the program that draws from a stream every rank seeds alike (function_draw)."""
    for step in origin.path:
        if isinstance(step.node, (cst.Name, cst.Attribute)):
            drawn = _function_draw(finder, step.node)
            if drawn is not None:
                return drawn
    return None


def _function_draw(finder: Finder, value: cst.BaseExpression) -> tuple[str, str | None] | None:
    """(what draws, its stream) where `value` names a function of the program (this
    module's or another's: HelperDraws.of_function) whose call draws, itself or through
    the functions it calls, from a process-wide stream every rank seeds alike."""
    helper = finder.t.function_draw(value)
    if helper is None or not finder.alike(helper.stream):
        return None
    return f"{code_of(value)[:40]}: {finder.describe(helper)}", helper.stream


def _shown(function: cst.Lambda | cst.FunctionDef) -> str:
    """A function by its name, a lambda by its first characters."""
    if isinstance(function, cst.FunctionDef):
        return f"{function.name.value}()"
    return f"{code_of(function)[:30]}..."


def object_draw(finder: Finder, value: cst.BaseExpression) -> tuple[str, str | None] | None:
    """(what draws, its stream) where a call of the object of the program `value` holds
    (HelperDraws.of_value) draws from a process-wide stream every rank seeds alike."""
    draw = finder.t.value_draw(value)
    if draw is None or not finder.alike(draw.stream):
        return None
    if draw.path is None:  # this module's: its line in the user's file
        draw = replace(draw, line=finder.t.state.line_map(draw.line))
    return f"{code_of(value)[:40]}: {draw.describe()}", draw.stream


def _parts_draw(
    finder: Finder,
    flow: DefUse,
    value: cst.BaseExpression,
    functions: bool = True,
    objects: bool = True,
) -> tuple[str, str | None] | None:
    """The first draw of the functions and lambdas (with `functions`) and the objects (with
    `objects`) `value` may hold (_transform_parts)."""
    composers = COMPOSERS | finder.t.state.hints.per_sample.transforms
    for part in _transform_parts(flow, value, composers):
        if not isinstance(part, (cst.Lambda, cst.FunctionDef)):
            drawn = object_draw(finder, part) if isinstance(part, cst.BaseExpression) else None
            if objects and drawn is not None:
                return drawn
            if functions and isinstance(part, (cst.Name, cst.Attribute)):
                drawn = _function_draw(finder, part)  # `transform=random_flip`
                if drawn is not None:
                    return drawn
        elif functions:
            drawn = _draw_in(part, finder)
            if drawn is not None:
                text = f"{code_of(part)[:40]}..." if isinstance(part, cst.Lambda) else _shown(part)
                return f"{text}: {drawn[0]}", drawn[1]
    return None


#: The keywords a dataset's construction takes its per-sample transforms by.
_TRANSFORM_KEYWORDS = frozenset({"transform", "target_transform", "transforms"})


def handed_detail(call: cst.Call, what: str, seeded: str) -> str:
    """DP067's detail at a construction handed a drawing transform (handed_transforms)."""
    return (
        f"{code_of(call.func)}() is handed a transform of the program that draws from the "
        f"process-wide generator ({what}): {seeded}, rank r's k-th sample gets every rank's "
        "k-th draw"
    )


def handed_transforms(finder: Finder) -> list[tuple[cst.Call, str, str | None]]:
    """(the construction, what draws, its stream) for each dataset construction of the
    module a sharded loader loads, handed by a transform keyword (or, a Dataset class of
    the program's, by any argument: `Pairs(8, jitter)`, the class's own per-sample hook) a
    function or lambda of the program, or by any argument an object of the program
    (_transform_parts: through names, parameters, lists and composers), that draws per
    call from a process-wide stream every rank seeds alike (`finder.alike`); a draw with a
    generator of its own is none."""
    if finder.t.state.text_count("transform") == 0 and finder.t.state.text_count("Dataset") == 0:
        return []  # no construction is handed one: the view is not built for nothing
    flow = view(finder.module)
    loaded = _sharded_datasets(flow)
    programs = finder.t.state.hints.per_sample.datasets
    found: list[tuple[cst.Call, str, str | None]] = []
    for call in flow.calls:
        if id(call) not in loaded:
            continue  # no sharded loader loads it (an evaluation set every rank reads whole)
        objects = not _said_by_dataset(finder, call)
        own = bool(finder.t.qualified_names(call.func) & programs)
        for arg in call.args:
            if arg.star or (arg.keyword is not None and arg.keyword.value == "dataset"):
                continue
            # a function or lambda by a transform keyword, an object by any argument
            handed = own or (arg.keyword is not None and arg.keyword.value in _TRANSFORM_KEYWORDS)
            drawn = _parts_draw(finder, flow, arg.value, handed, objects)
            if drawn is not None:
                found.append((call, *drawn))
                break
    return found


def collate_detail(call: cst.Call, what: str, seeded: str) -> str:
    """DP067's detail at a sharded loader whose collate_fn draws (handed_collates)."""
    return (
        f"{code_of(call.func)}()'s collate_fn is a function or object of the program that "
        f"draws from the process-wide generator ({what}) for each batch: {seeded}, rank r's "
        "k-th batch gets every rank's k-th draws, where DataParallel drew one stream over "
        "the global batches"
    )


def handed_collates(finder: Finder) -> list[tuple[cst.Call, str, str | None]]:
    """(the loader, what draws, its stream) for each sharded DataLoader of the module
    (`batch_size=ddp_per_rank_batch(...)`) handed by `collate_fn=` a function, lambda or
    object of the program (_transform_parts) whose call draws from a process-wide stream
    every rank seeds alike: a mixup, cutmix or random crop made as the batch is collated
    draws each rank's k-th batch alike, as a per-sample transform does."""
    if finder.t.state.text_count("collate_fn") == 0:
        return []
    flow = view(finder.module)
    found: list[tuple[cst.Call, str, str | None]] = []
    for call in flow.calls:
        if not _per_rank_loader(call):
            continue
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == "collate_fn":
                drawn = _parts_draw(finder, flow, arg.value)
                if drawn is not None:
                    found.append((call, *drawn))
    return found


def _said_by_dataset(finder: Finder, call: cst.Call) -> bool:
    """The class `call` builds is of a module of the program that defines a class whose
    `__call__` draws (told as `module.Class.__call__`): that module's reading of its
    `self.transform(x)` says DP067 there (dataset_draws.py), not again here."""
    modules = {name.rpartition(".")[0] for name in finder.t.qualified_names(call.func)}
    modules.discard("")
    return bool(modules) and any(
        key.endswith(".__call__") and key.rsplit(".", 2)[0] in modules
        for key in finder.t.state.random_helpers
    )


def _sharded_datasets(flow: DefUse) -> set[int]:
    """The ids of the calls a sharded DataLoader's dataset comes from: a loader whose
    batch_size the data pass read per rank (`ddp_per_rank_batch(...)`), its first argument
    or `dataset=` followed through names (flow.origins)."""
    found: set[int] = set()
    for call in flow.calls:
        if not _per_rank_loader(call):
            continue
        first = [a.value for a in call.args if a.keyword is None][:1]
        first += [a.value for a in call.args if a.keyword and a.keyword.value == "dataset"]
        found |= {
            id(o.node)
            for value in first
            for o in origins(flow, value)
            if isinstance(o.node, cst.Call) and _dataset_path(o)
        }
    return found


def _per_rank_loader(call: cst.Call) -> bool:
    """A loader whose batch_size the data pass read per rank (`ddp_per_rank_batch(...)`)."""
    sizes = [a.value for a in call.args if a.keyword and a.keyword.value == "batch_size"]
    return (
        bool(sizes) and isinstance(sizes[0], cst.Call) and code_of(sizes[0].func) == PER_RANK_BATCH
    )


def _dataset_path(origin: Origin) -> bool:
    """The call `origin` starts from may build the dataset the loader loads: not a library
    composer (`Compose([...])` builds a transform), and every call on the way is handed it
    positionally (`Subset(ds, idx)`, `ConcatDataset([a, b])`), not by a keyword (a
    transform handed `Ones(8, transform=t)` is not the dataset)."""
    if isinstance(origin.node, cst.Call) and name_of(origin.node.func) in COMPOSERS:
        return False
    previous = origin.node
    for step in origin.path[1:]:
        node = step.node
        if node is previous:
            continue  # the walk's start and the first step through it: one call
        if isinstance(node, cst.Call) and not step.call:
            if not any(a.value is previous for a in node.args if a.keyword is None):
                return False
        previous = node
    return True


def _transform_parts(
    flow: DefUse, value: cst.BaseExpression, composers: frozenset[str] = COMPOSERS
) -> list[cst.CSTNode]:
    """What `value` may call per sample, as the def-use view follows it (flow.origins): the
    value itself (an object of the program, `Jitter()`, a name bound to one), and each
    function, lambda, object built by a call, or imported name the view finds it comes from
    through bindings, parameters (a helper's `get_data(transform, mode)`, every call site),
    the elements of a list or tuple, and a library composer's list (`Compose([...])`,
    `RandomApply([t], p)`: sample_code.COMPOSERS, each element run on the sample), or a
    program's own per-sample class's (`composers`: ProgramHints.per_sample.transforms, a
    `JointCompose([...])` a dataset is handed): carried (_carried). A source reached only
    through a value computed from it (`len(loader)`) is not what the dataset calls."""
    parts: list[cst.CSTNode] = []
    if isinstance(value, (cst.Name, cst.Attribute, cst.Call)):
        parts.append(value)
    for origin in origins(flow, value):
        node = origin.node
        if not _carried(origin, composers):
            continue
        if origin.kind == "definition" and isinstance(node, (cst.Lambda, cst.FunctionDef)):
            parts.append(node)
        elif origin.kind in ("call", "instance") and isinstance(node, cst.Call):
            if node is not value:
                parts.append(node)  # `RandomScale()` in a Compose's list
        elif origin.kind == "import":  # `transform=random_flip`, `[jitter.JITTER]`
            parts += [s.node for s in origin.path[1:2] if s.node is not value]
    return parts


def _carried(origin: Origin, composers: frozenset[str] = COMPOSERS) -> bool:
    """Every step after the source hands the source itself on: a binding (a name, an
    attribute, a parameter), an element of a list or tuple, a composer's list argument (a
    library's, sample_code.COMPOSERS, or a per-sample class of the program's: round 29,
    mapbox/robosat@cbb1c73's JointCompose of its drawing flips, handed to a dataset of
    another module, gave no DP067), a return of a function of this module entered."""
    previous = origin.node
    for step in origin.path[1:]:
        node = step.node
        if node is previous:
            continue  # the walk's start and the first step through it: one call
        if isinstance(node, cst.Call) and not step.call:
            given = [
                a.value
                for a in node.args
                if a.keyword is None or a.keyword.value in ("transforms", "transform")
            ]
            if name_of(node.func) not in composers or not any(v is previous for v in given):
                return False
        elif not isinstance(node, _CARRIERS) and not step.call:
            return False
        previous = node
    return True


#: The nodes a callable passes through unchanged (a binding, an element of a container).
_CARRIERS = (
    cst.Name,
    cst.Attribute,
    cst.Param,
    cst.List,
    cst.Tuple,
    cst.Element,
    cst.Return,
    cst.ImportAlias,
)


def _draw_in(function: cst.CSTNode, finder: Finder) -> tuple[str, str | None] | None:
    """(what draws, its stream) of the first draw in `function`'s body from a process-wide
    stream every rank seeds alike (`finder.alike`): written there, or made by a function of
    the program it calls, of this module (followed through the functions it calls in turn)
    or of another (ProgramFacts.draws), as HelperDraws.of_call tells the training loop's
    (kuangliu/torchcv@6291f3e, round 25: `transform_train(img, boxes)` handed as
    `transform=` calls torchcv.transforms' `random_flip`, which draws `random.random()`);
    None where it draws none."""
    body = function.body if isinstance(function, (cst.Lambda, cst.FunctionDef)) else function
    qualified = finder.t.qualified_names
    for node in walk(body):
        if not isinstance(node, cst.Call):
            continue
        names = qualified(node.func)
        drawn: tuple[str, str | None] | None = None
        if names & RANDOM_DRAWS and not own_stream(node):
            drawn = f"{code_of(node.func)[-40:]}()", stream_of(names)
        elif fresh_fill(node):
            drawn = f"{code_of(node.func)[-40:]}()", "torch"
        elif (helper := finder.t.helper_draw_of(node)) is not None:
            drawn = finder.describe(helper), helper.stream
        if drawn is not None and finder.alike(drawn[1]):
            return drawn
    return None
