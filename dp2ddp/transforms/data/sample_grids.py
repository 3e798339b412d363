"""Sample grids saved from the step's batch: gathered from every rank, else said (DP132).

Stop 50 (diyiiyiii/StyTR-2@c11ea32 train.py:159-164: `out = torch.cat((content_images,
out), 0)`, `out = torch.cat((style_images, out), 0)`, `save_image(out, name)` in the
training loop, `out` the wrapped model's output): DataParallel's grid held the whole
batch's rows; sharded, each rank's grid holds its share, and the save (on rank 0, the
rank_zero pass) wrote half the images, without a word. The analogue for numbers is DP030
(evaluation.py); this reads the same facts: the loops over a sharded loader's batches
(`Loader.loops`, `next_loops`, ...) and the names bound from their batches.

An image save (`torchvision.utils.save_image(v, ...)`) in such a loop whose image `v`
reads the batch (loop_takers.batch_derived) is proved and gathered where:

- `v` is a name whose every binding reaching the save is one `torch.cat((a, b, ...))` along
  dim 0 in the loop's body, or arithmetic keeping the rows (`(og_img + 1) * 0.5`: names and
  numbers joined by `+ - * /`), and each operand is a name (read as it is: `out.detach()`,
  `.cpu()`) whose every reaching binding gives this rank's rows of the step: an element
  the loop's target unpacks, a `next(it)` of a sharded loader's batches (or an element it
  unpacks; `it` also a generator of the module over the loader, `cycle(loader)`:
  analysis/generator_batches.generator_takers), what a call of the DataParallel wrap
  returns (each element of a returned tuple: DataParallel gathers each along dim 0), one
  hop through `.to()`/`.cuda()`/`.detach()`, what a method of the wrapped model returns
  when handed such rows (`ema_model.module.sample(img=og_img)`: the receiver's every
  origin, flow.origins, is the wrap, through `.module` and `copy.deepcopy`: the model's own
  method on this rank's share, where DataParallel's `.module` ran it on the whole batch);
  or itself such a grid (`torch.cat((style, torch.cat((content, out))))` in two bindings);
- every read of each grid binding is the save's image, an operand of the next grid, or
  inside a call that shows it (`print(grid.shape)`), so gathering changes nothing the
  step computes;
- every rank reaches each grid's statement (analysis/uniformity.py: no condition around it
  that may differ between ranks, no statement before it that may leave on one rank, the
  function holding the loop called where every rank arrives), the loop over the sharded
  batches running its steps alike on every rank;

then each operand of this rank's rows is read as `ddp_gather_rows(a)` (every rank's rows,
rank by rank, templates/helpers/gather_rows.py.j2), outside the rank-0 guard the save goes
under: rank 0 saves a grid of the whole step's batch, part after part as DataParallel's
(`x` of every rank, then `out` of every rank). Anything else that reads the batch: DP132.

Stop 55 (helper v2, csdwren/PReNet@97b2f77 train_PReNet.py:110-116): a grid made by
`torchvision.utils.make_grid` is an image as a save's is (the caller shows it:
`writer.add_image(tag, make_grid(x))`), and the loop's last batch is read after the loop
(`im = make_grid(target.data)` after the epoch's batches, `out, _ = model(input)` on them
first): DataParallel's image held the last step's whole batch, rank 0's holds its share, and
nothing was said. An image made or saved in the statements following such a loop in its block
that reads a name bound from the batches in the loop (through bindings after the loop:
`out = model(x)`, `out = clamp(out)`) is said: DP132.

Stop 55 (helper x2; round 8's v2-B, treellor/DeepLearning@5ab131e SR/SRCNN_train.py:128-168,
and v3-C, fiyero/DCGAN_pytorch@c067e55 line 190): a sample batch kept from a step
(`show_hr = HR` under `if show_hr is None`) is read anywhere later in the function, not only
in the statements after the loop, and often handed to the program's own function that saves
its parameter with save_image: each such image, in the function around the loop and outside
its body, or handed to such a function also in the loop, is said (DP132). Whether an image
reads the batch follows the bindings that reach it (_reads_batch), not its names: a grid of
`fake = netG(fixed_noise)` after `fake = netG(noise)` in the same step is whole on every rank,
as DataParallel's, and is neither gathered nor said.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeGuard

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.flow.carriers import METHODS
from dp2ddp.flow.origins import origins
from dp2ddp.transforms._support.names import DATAPARALLEL, DDP_WRAPS, DISTRIBUTED_DATA_PARALLEL
from dp2ddp.transforms._support.nodes import (
    assigned_value,
    call_named,
    derived_names,
    name_of,
    nodes_of,
    variables_under,
    walk,
)
from dp2ddp.transforms.analysis.device_moves import kept_rows
from dp2ddp.transforms.analysis.generator_batches import generator_takers
from dp2ddp.transforms.analysis.uniformity import RankUniformity
from dp2ddp.transforms.data.loop_takers import batch_names, helper_batch_names

if TYPE_CHECKING:
    from dp2ddp.flow.defuse import Definition, DefUse
    from dp2ddp.transforms.data.evaluation import LoaderEvaluation
    from dp2ddp.transforms.data.plan import Loader

#: Calls that save their first argument as an image grid.
IMAGE_SAVES = frozenset({"torchvision.utils.save_image"})
#: Calls that save their first argument as an image grid or make one of its rows (the caller
#: shows it: `writer.add_image(tag, make_grid(x))`).
IMAGE_CALLS = IMAGE_SAVES | {"torchvision.utils.make_grid"}
_SAVE_NAMES = frozenset(name.rsplit(".", 1)[-1] for name in IMAGE_CALLS)
GATHER = "ddp_gather_rows"


def gathered_grids(t: LoaderEvaluation, loader: Loader, loop: cst.For | cst.While) -> None:
    """`loop` over `loader`'s batches, for gather_grids once every loader is planned."""
    if not any(loop is seen for _, seen in t._grid_loops):
        t._grid_loops.append((loader, loop))


def gather_grids(t: LoaderEvaluation) -> None:
    """Gather or say each image grid saved in the loops over sharded loaders' batches
    (module docstring)."""
    if not t._grid_loops or not any(
        _is_image_call(call, t) for call in nodes_of(t._module_node, cst.Call)
    ):
        return  # no image saved or made anywhere in the module: nothing to gather or say
    said: set[int] = set()
    saving: dict[int, set[int]] = {}  # _saved_params of each plain function, read once
    for loader, loop in t._grid_loops:
        saves = _image_calls(t, loop.body)
        if saves:
            _gather_grids(t, loader, loop, saves)
        _say_last_batch_images(t, loader, loop, said, saving)


def _image_calls(t: LoaderEvaluation, root: cst.CSTNode) -> list[cst.Call]:
    """The calls under `root` that save or make an image grid of their first argument."""
    return [node for node in walk(root, skip_scopes=True) if _is_image_call(node, t)]


def _is_image_call(node: cst.CSTNode, t: LoaderEvaluation) -> TypeGuard[cst.Call]:
    """`node` is a call that saves or makes an image grid of its first argument."""
    return bool(
        isinstance(node, cst.Call)
        and name_of(node.func).rsplit(".", 1)[-1] in _SAVE_NAMES
        and t.qualified_names(node.func) & IMAGE_CALLS
        and node.args
        and node.args[0].keyword is None
        and not node.args[0].star
    )


def _say_last_batch_images(
    t: LoaderEvaluation,
    loader: Loader,
    loop: cst.For | cst.While,
    said: set[int],
    saving: dict[int, set[int]],
) -> None:
    """DP132 for each image made or saved, in the scope around `loop` and outside its body,
    of a step's rows (module docstring, stop 55): rank 0's image holds its share of that
    batch. The image's binding that reaches the save is followed (a leftover name, a batch
    kept from a step: `show_hr = HR`), and an image handed to a function of the module
    that saves its parameter (`save_image(show_hr, ...)`) counts, also in the loop."""
    flow = view(t._module_node)
    function = flow.function_around(loop)
    root: cst.CSTNode = t._module_node if function is None else function.node.body
    step = _Step(loader, loop, _generator_takers(flow, loader))
    base = _batch_names(t, step)
    seeds = derived_names(loop.body, base)
    inside = {id(n) for n in walk(loop.body, skip_scopes=True)} | {id(loop)}
    for call in walk(root, skip_scopes=True):
        if not isinstance(call, cst.Call) or id(call) in said:
            continue
        in_loop = id(call) in inside
        images = [call.args[0].value] if not in_loop and _is_image_call(call, t) else []
        handed = _handed_images(t, flow, call, saving) if not images else []
        for image in images + handed:
            if any(isinstance(n, cst.Call) and name_is(n, GATHER) for n in walk(image)):
                continue
            if _reads_batch(flow, image, base, seeds, inside, set()):
                said.add(id(call))
                where = "in the loop" if in_loop else "after the loop over the batches"
                how = f"handed to `{t.code(call.func)}`, which saves it as an image, " * (
                    image in handed
                )
                t.warn(
                    call,
                    "DP132",
                    f"`{t.code(image)}` holds this rank's rows of a step's batch, read {where}"
                    f"; {how}rank 0 shows its share of DataParallel's image",
                )
                break


def _handed_images(
    t: LoaderEvaluation, flow: DefUse, call: cst.Call, saving: dict[int, set[int]]
) -> list[cst.BaseExpression]:
    """The arguments of `call` that a plain function of the module it runs saves or makes
    an image of (its parameter read by torchvision's save_image/make_grid, through
    bindings in its body): SRCNN's `save_image(show_image_hr, ...)` of stop 55 (v2-B).
    `saving` keeps each function's saved parameters, read once for all its call sites."""
    found: list[cst.BaseExpression] = []
    for function in flow.callees(call):
        if function.owner is not None or not isinstance(function.node, cst.FunctionDef):
            continue
        saved = saving.get(id(function.node))
        if saved is None:
            saved = saving[id(function.node)] = set()
            for inner in _image_calls(t, function.node.body):
                saved |= _params_read(flow, inner.args[0].value, function.params, set())
        for index, param in enumerate(function.params):
            if id(param) not in saved:
                continue
            for position, arg in enumerate(call.args):
                if arg.star:
                    break
                named = arg.keyword is not None and arg.keyword.value == param.name.value
                if named or arg.keyword is None and position == index:
                    found.append(arg.value)
    return found


def _params_read(
    flow: DefUse, expr: cst.CSTNode, params: list[cst.Param], seen: set[int]
) -> set[int]:
    """The ids of `params` `expr` reads, directly or through the bindings reaching it."""
    read: set[int] = set()
    for name in variables_under(expr):
        for d in _defs(flow, name):
            if d.kind == "param":
                read |= {id(p) for p in params if p is d.target}
            elif d.value is not None and id(d.statement) not in seen:
                seen.add(id(d.statement))
                read |= _params_read(flow, d.value, params, seen)
    return read


def _reads_batch(
    flow: DefUse,
    expr: cst.CSTNode,
    base: set[str],
    seeds: set[str],
    inside: set[int],
    seen: set[int],
) -> bool:
    """`expr` reads, through the bindings that reach it, a name the loop (`inside`) binds
    from its batches (`base`: its target, `x = next(it)`): `out, _ = model(x)` after the
    loop, then `out = clamp(out)`; `show_hr = HR` in a step. The binding reaching the read
    decides, not the name: `fake = netG(fixed_noise)` after `fake = netG(noise)` in the
    same step reads no batch (stop 55 v3-C). A binding whose value the view does not hold
    (`x += y`, `except`) counts where the name is derived from the batches in the loop."""
    for name in variables_under(expr):
        found = _defs(flow, name)
        if not found and name.value in seeds:
            return True
        for d in found:
            within = id(d.statement) in inside
            if within and name.value in base:
                return True
            if d.kind == "param" or id(d.statement) in seen:
                continue
            seen.add(id(d.statement))
            if d.value is None or d.kind == "augassign":
                if within and name.value in seeds:
                    return True
            elif _reads_batch(flow, d.value, base, seeds, inside, seen):
                return True
    return False


def _gather_grids(
    t: LoaderEvaluation, loader: Loader, loop: cst.For | cst.While, saves: list[cst.Call]
) -> None:
    flow = view(t._module_node)
    cache: list[RankUniformity] = []
    step = _Step(loader, loop, _generator_takers(flow, loader))
    base = _batch_names(t, step)
    derived = derived_names(loop.body, base)
    inside = {id(n) for n in walk(loop.body, skip_scopes=True)} | {id(loop)}
    for call in saves:
        image = call.args[0].value
        if not _reads_batch(flow, image, base, derived, inside, set()):
            continue  # not read from the batches: a fixed sample, saved as DataParallel did
        if any(isinstance(n, cst.Call) and name_is(n, GATHER) for n in walk(image)):
            continue
        why = _plan(t, flow, step, image, cache)
        if isinstance(why, str):
            t.warn(
                call,
                "DP132",
                f"`{t.code(image)}` holds this rank's rows of the step's batch ({why}); rank 0 "
                "saves its share of DataParallel's grid",
            )
            continue
        fresh = [name for name in why if name not in t._gathers]
        for name in fresh:
            t._gathers[name] = call_named(GATHER, cst.Arg(cst.Name(name.value)))
        if fresh:
            t.state.helpers.add("gather_rows")
            t.record(
                call,
                f"{', '.join(sorted({n.value for n in fresh}))}: this rank's rows of the step, "
                f"joined into the grid `{t.code(image)}` rank 0 saves, gathered from every rank "
                f"({GATHER}, where every rank arrives): the grid holds the whole batch's rows",
            )


@dataclass(frozen=True)
class _Step:
    """The loop and the sharded loader whose batches it takes."""

    loader: Loader
    loop: cst.For | cst.While
    #: The `next()` calls taking the loader's batches from a generator of the module.
    takers: frozenset[int]


def _generator_takers(flow: DefUse, loader: Loader) -> frozenset[int]:
    """The `next(it)` calls of the module taking `loader`'s batches through a generator
    over it (`self.dl = cycle(DataLoader(...))`, then `next(self.dl)`)."""
    return frozenset(
        id(node)
        for loop, _, _ in loader.loops
        if isinstance(loop, cst.For)
        for node in generator_takers(flow, loop)
        if isinstance(node, cst.Call)
    )


def name_is(call: cst.Call, name: str) -> bool:
    return isinstance(call.func, cst.Name) and call.func.value == name


def _plan(
    t: LoaderEvaluation,
    flow: DefUse,
    step: _Step,
    image: cst.BaseExpression,
    cache: list[RankUniformity],
) -> list[cst.Name] | str:
    """The operand names to gather so the grid `image` holds every rank's rows, or why not."""
    loop = step.loop
    if not isinstance(image, cst.Name):
        return "not a name bound by torch.cat along dim 0 of the batch's rows"
    if _rows(t, flow, step, image, set()):
        return "the batch's rows saved directly, not joined into a grid dp2ddp gathers"
    gathered: list[cst.Name] = []
    grids: list[tuple[Definition, cst.Name | None]] = [(d, None) for d in _defs(flow, image)]
    saved = image
    seen: set[int] = set()
    inside = {id(n) for n in walk(loop.body, skip_scopes=True)}
    while grids:
        d, read = grids.pop()
        if id(d.statement) in seen:
            continue
        seen.add(id(d.statement))
        parts = _cat_parts(t, d) if id(d.statement) in inside else None
        if parts is None:
            return (
                f"`{t.code(d.target)}` is not bound by torch.cat along dim 0, or by arithmetic "
                "keeping its rows, in the loop"
            )
        if not cache:
            cache.append(RankUniformity.for_pass(t, t._module_node))
        if _rank_dependent(cache[0], loop, d.statement):
            return f"`{t.code(d.statement)}` may not be reached by every rank".replace("\n", " ")
        if not _read_only_by(t, flow, d, saved, read):
            return f"`{t.code(d.target)}` is read by more than the saved grid"
        for part in (kept_rows(p) for p in parts):
            if not isinstance(part, cst.Name):
                return f"`{t.code(part)}` in the grid is not a name"
            if _rows(t, flow, step, part, set()):
                gathered.append(part)
                continue
            found = _defs(flow, part)
            if not found:
                return f"`{part.value}` is not followed"
            if (receiver := _unproved_method(t, flow, step, found)) is not None:
                return (
                    f"`{part.value}` is what a method of `{receiver}` returns for the batch, "
                    f"and `{receiver}` is not proved the wrapped model or a copy of it"
                )
            grids += [(inner, part) for inner in found]
    return gathered


def _defs(flow: DefUse, name: cst.Name) -> list[Definition]:
    return [d for d in flow.reaching(name) if d.kind != "store"]


def _cat_parts(t: LoaderEvaluation, d: Definition) -> list[cst.BaseExpression] | None:
    """The operands of `torch.cat((a, b, ...))` along dim 0 a plain binding gives, or the
    names of arithmetic that keeps their rows (`(og_img + 1) * 0.5`)."""
    value = d.value
    if d.kind != "assign" or d.element or value is None:
        return None
    if not isinstance(value, cst.Call):
        return _arithmetic_names(value)
    if "torch.cat" not in t.qualified_names(value.func) or not value.args:
        return None
    first, rest = value.args[0], value.args[1:]
    if first.keyword is not None or not isinstance(first.value, (cst.Tuple, cst.List)):
        return None
    for arg in rest:
        if arg.keyword is not None and arg.keyword.value != "dim" or arg.star:
            return None
        if not (isinstance(arg.value, cst.Integer) and arg.value.evaluated_value == 0):
            return None
    if any(not isinstance(e, cst.Element) for e in first.value.elements):
        return None
    return [e.value for e in first.value.elements]


_ROW_WISE = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)


def _arithmetic_names(value: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    """The names `value` joins with numbers by `+ - * /` (elementwise: each row stays its
    own), or None."""
    names: list[cst.BaseExpression] = []
    todo = [value]
    while todo:
        node = todo.pop()
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _ROW_WISE):
            todo += [node.left, node.right]
        elif isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            todo.append(node.expression)
        elif isinstance(node, cst.Name):
            names.append(node)
        elif not isinstance(node, (cst.Integer, cst.Float)):
            return None
    return names or None


def _read_only_by(
    t: LoaderEvaluation, flow: DefUse, d: Definition, saved: cst.Name, read: cst.Name | None
) -> bool:
    """Every read the grid binding `d` reaches is the saved image or `read` (the next grid's
    operand)."""
    assert isinstance(d.target, cst.Name)
    scope = flow.scope_of(d.target)
    for use in flow.uses(scope, d.target.value):
        if not any(r.statement is d.statement for r in flow.reaching(use)):
            continue
        if use is not saved and use is not read and not _shown(t, use):
            return False
    return True


def _shown(t: LoaderEvaluation, use: cst.Name) -> bool:
    """`use` is read inside a call that shows or saves it (`print(grid.shape[0])`): the
    gathered grid shows DataParallel's."""
    node: cst.CSTNode | None = t.parent(use)
    while node is not None and not isinstance(node, cst.BaseStatement):
        if isinstance(node, cst.Call) and (
            t._prints(node) or t.qualified_names(node.func) & IMAGE_CALLS
        ):
            return True
        node = t.parent(node)
    return False


def _rank_dependent(uniform: RankUniformity, loop: cst.CSTNode, statement: cst.CSTNode) -> bool:
    """Not every rank may reach `statement` in `loop`: a condition around it that may differ
    between ranks (the loop over the sharded batches aside: its steps are alike on every
    rank), a statement before it that may leave on one rank (`if loss > 9: continue`), or
    not every rank reaches the loop."""
    return (
        any(s is not loop for s in uniform.rank_dependent_statements(statement))
        or uniform.left_before(statement) is not None
        or uniform.why_not_reached(loop, conditions=False) is not None
    )


def _rows(
    t: LoaderEvaluation,
    flow: DefUse,
    step: _Step,
    name: cst.Name,
    through: set[int],
) -> bool:
    """Every binding reaching `name` gives this rank's rows of the step (module docstring)."""
    found = _defs(flow, name)
    if not found:
        return False
    loop = step.loop
    inside = {id(n) for n in walk(loop.body, skip_scopes=True)}
    over = any(loop is other for other, _, _ in step.loader.loops)
    for d in found:
        if over and d.kind == "for" and d.statement is loop and d.element:
            continue
        if id(d.statement) in through:
            continue
        if d.kind != "assign" or id(d.statement) not in inside or len(d.element) > 1:
            return False
        value = d.value
        if d.element and isinstance(value, cst.Tuple):
            return False  # `x, y = a, b`: not followed
        while (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value in METHODS
        ):
            inner = value.func.value
            if isinstance(inner, cst.Name):
                if not d.element and _rows(t, flow, step, inner, through | {id(d.statement)}):
                    value = None
                break
            value = inner
        if value is None:
            continue
        if not isinstance(value, cst.Call):
            return False
        if name_is(value, "next") and (id(value) in step.takers or _takes(t, step.loader, value)):
            continue  # a batch taken from the sharded loader
        if isinstance(value.func, cst.Name) and _wrap(t, flow, value.func):
            continue  # the wrap's output (each element of a tuple: gathered along dim 0)
        if _wrap_method(t, flow, step, value, through | {id(d.statement)}):
            continue
        return False
    return True


def _wrap_method(
    t: LoaderEvaluation, flow: DefUse, step: _Step, call: cst.Call, through: set[int]
) -> bool:
    """`W.module.sample(img=x)`: a method of the wrapped model (every origin of `W` the
    wrap, through `.module` and `copy.deepcopy`: an EMA copy) handed this rank's rows `x`.
    DataParallel's `.module` ran it on the whole batch; here on this rank's share."""
    if not isinstance(call.func, cst.Attribute) or not any(
        isinstance(a.value, cst.Name) and _rows(t, flow, step, a.value, through) for a in call.args
    ):
        return False
    found = [
        o for o in origins(flow, call.func.value, stop=lambda c: _is_wrap(t, c)) if not o.selects
    ]
    return bool(found) and all(
        o.kind == "call"
        and isinstance(o.node, cst.Call)
        and _is_wrap(t, o.node)
        or o.kind == "parameter"
        and _wrapped_elsewhere(t, flow, o.node)
        for o in found
    )


def _wrapped_elsewhere(t: LoaderEvaluation, flow: DefUse, param: cst.CSTNode) -> bool:
    """`param` is a parameter of `__init__` of a top-level class of the module that no call
    here binds, and every construction of the class in the program's other modules hands it
    the DataParallel wrap (ProgramHints.constructed: `Trainer(diffusion, ...)` in
    celebA_128.py, `diffusion` the wrap at the call, analysis/constructions.py)."""
    if not isinstance(param, cst.Param):
        return False
    function = flow.function_around(param)
    if function is None or function.name != "__init__" or function.owner is None:
        return False
    if not isinstance(t.parent(function.owner), cst.Module) or param not in function.params:
        return False
    position = str(function.params.index(param) - 1)
    name = param.name.value
    kinds = []
    for call in t.state.hints.constructed:
        owner, _, slots = call.partition("|")
        if owner == function.owner.name.value:
            given = dict(slot.partition("=")[::2] for slot in slots.split(";") if slot)
            kinds.append(None if "*" in given else given.get(position) or given.get(name))
    return bool(kinds) and all(kind == "wrap" for kind in kinds)


def _takes(t: LoaderEvaluation, loader: Loader, call: cst.Call) -> bool:
    """`next(it)` with `it` bound only to `iter(L)` (loop_takers.next_loaders), L `loader`
    or another loader of the module sharded (each rank's next batch is its share too)."""
    if not call.args or not isinstance(it := call.args[0].value, cst.Name):
        return False
    sharded = {loader.call: loader, **t._sampler_sharded}
    for call, planned in t._loaders.items():
        edit = t._edits.get(call)
        if call in t._shards or edit is not None and (edit.sampler or edit.replace is not None):
            sharded[call] = planned
    bound = [assigned_value(r.node, t) for r in t.referents(it)]
    return bool(bound) and all(
        isinstance(b, cst.Call)
        and name_is(b, "iter")
        and len(b.args) == 1
        and bool(t._resolve(b.args[0].value, sharded, 0))
        for b in bound
    )


def _unproved_method(
    t: LoaderEvaluation, flow: DefUse, step: _Step, found: list[Definition]
) -> str | None:
    """The receiver of a method handed this rank's rows that binds one of `found`, not
    proved the wrap (_wrap_method said no): for DP132's text."""
    for d in found:
        value = kept_rows(d.value) if d.value is not None else None
        if (
            d.kind == "assign"
            and isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and any(
                isinstance(a.value, cst.Name) and _rows(t, flow, step, a.value, set())
                for a in value.args
            )
        ):
            return t.code(value.func.value)
    return None


def _batch_names(t: LoaderEvaluation, step: _Step) -> set[str]:
    """Names the loop binds from its batches themselves (its target, a step helper's
    result, `x = next(it)`), where _reads_batch stops: what is computed from them is
    followed binding by binding."""
    helpers = helper_batch_names(t, step.loop)  # type: ignore[arg-type]
    return batch_names(step.loop) | helpers | _taken(t, step)


def _taken(t: LoaderEvaluation, step: _Step) -> set[str]:
    """Names the loop binds from `next(it)` of `loader`'s batches, through `.to(device)`
    and the like (`x = next(it).to(device)`: device_moves.kept_rows, as next_bound)."""
    found: set[str] = set()
    for node in walk(step.loop.body, skip_scopes=True):
        if not isinstance(node, cst.Assign):
            continue
        value = kept_rows(node.value)
        if (
            isinstance(value, cst.Call)
            and name_is(value, "next")
            and (id(value) in step.takers or _takes(t, step.loader, value))
        ):
            found |= {n.value for tg in node.targets for n in variables_under(tg.target)}
    return found


def _wrap(t: LoaderEvaluation, flow: DefUse, func: cst.Name) -> bool:
    """Every binding reaching `func` is the DataParallel wrap (migrated already by the
    model pass: `DistributedDataParallel(...)`, `ddp_wrap_trainable(...)`), through
    `.to()`/`.cuda()`."""
    found = _defs(flow, func)
    for d in found:
        value = kept_rows(d.value) if d.value is not None else None
        if not (d.kind == "assign" and not d.element and isinstance(value, cst.Call)):
            return False
        if not _is_wrap(t, value):
            return False
    return bool(found)


def _is_wrap(t: LoaderEvaluation, call: cst.Call) -> bool:
    """The DataParallel wrap, or the model pass's DDP wrap of it."""
    wraps = t.qualified_names(call.func) & (DATAPARALLEL | DISTRIBUTED_DATA_PARALLEL)
    return bool(wraps) or isinstance(call.func, cst.Name) and call.func.value in DDP_WRAPS
