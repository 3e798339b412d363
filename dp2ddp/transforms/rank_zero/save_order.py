"""Whether a checkpoint load may follow a rank-0 save, for barriers.py's loads (moved out of
barriers.py, stop 71, to make room there).

A load no save may precede in this run, in its function or at any call of that function in
the module (the def-use call sites, followed to the callers), and that a save follows, is a
resume at start-up: it reads what an earlier run wrote and is left as written. Asked of the
load's function alone, a helper that loads each epoch's checkpoint and saves the average
itself (YuanGongND/psla@76aedd1 validate_wa(), called after the epoch loop that saved them)
was taken for a resume, its own closing save following its loads: no barrier and no DP031,
and rank 1 loaded a missing or half-written checkpoint; while `resume(model, path)` called
at start-up, which saves nothing itself, got a false DP031.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import enclosing_function, name_of, walk
from dp2ddp.transforms.rank_zero.edits import callee

if TYPE_CHECKING:
    from dp2ddp.transforms.rank_zero.barriers import Barriers


def before_any_save(barriers: Barriers, statement: cst.CSTNode) -> bool:
    """A load that runs before anything in this run saved (a resume at start-up): no save
    may run before it, here or at a call of its function, and one runs after it."""
    earlier, later = _saves_around(barriers, statement, set())
    return not earlier and later


def _saves_around(barriers: Barriers, node: cst.CSTNode, seen: set[int]) -> tuple[bool, bool]:
    """(a save may run before `node`, one runs after it): in the blocks and loops of its
    function (or the module), then at each call of that function in the module."""
    t = barriers.t
    function = enclosing_function(node, t)
    scope: cst.CSTNode = function if function is not None else barriers.facts.module
    child, parent = node, t.parent(node)
    later = False
    while parent is not None and child is not scope:  # the module's own body too
        if isinstance(parent, (cst.For, cst.While)) and barriers.saves(parent):
            return True, later
        if isinstance(parent, (cst.IndentedBlock, cst.Module)):
            body = list(parent.body)
            at = next(i for i, s in enumerate(body) if s is child)
            ran = [s for s in body[:at] if not isinstance(s, (cst.FunctionDef, cst.ClassDef))]
            if any(barriers.saves(s) for s in ran):
                return True, later  # a def of a saving helper above saves nothing yet
            later = later or any(barriers.saves(s) for s in body[at + 1 :])
        child, parent = parent, t.parent(parent)
    if function is None or id(function) in seen:
        return False, later
    seen.add(id(function))
    for call in barriers.facts.uniform.index.call_sites(function):
        before, after = _saves_around(barriers, call, seen)
        if before:
            return True, later
        later = later or after
    return False, later


def saver_before(barriers: Barriers, node: cst.CSTNode, seen: set[int]) -> str:
    """Another module's saving function called before `node` in its function (or at module
    level): earlier in a block around it, or anywhere in a loop around it; else before a
    call of that function in the module (the def-use call sites; round 32,
    gly459/CrowdCount-baseline@e7055ca: `final_test()` loads the best checkpoint
    `utils.save_checkpoint` wrote on rank 0, called after the saving epoch loop; rank 1 read
    the previous epoch's file, unsaid); "" when none is seen."""
    t = barriers.t
    child, parent = node, t.parent(node)
    while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.ClassDef)):
        before: list[cst.CSTNode] = []
        if isinstance(parent, (cst.IndentedBlock, cst.Module)):
            body = list(parent.body)
            before = list(body[: next(i for i, s in enumerate(body) if s is child)])
        elif isinstance(parent, (cst.For, cst.While)):
            before = [parent.body]
        for piece in before:
            found = _saver_called(barriers, piece, seen)
            if found:
                return found
        child, parent = parent, t.parent(parent)
    if not isinstance(parent, cst.FunctionDef) or id(parent) in seen:
        return ""
    seen.add(id(parent))
    for call in barriers.facts.uniform.index.call_sites(parent):
        found = saver_before(barriers, call, seen)
        if found:
            return found
    return ""


def _saver_called(barriers: Barriers, piece: cst.CSTNode, seen: set[int]) -> str:
    """Another module's saving function a call in `piece` may call: directly, or through
    the functions and methods of this module it calls (`self.train_one_epoch()`, whose
    `self.early_stopping(loss, model)` saves the best checkpoint: round 33,
    gist-ailab/SleePyCo@8ebfb13, rank 1 loaded it half-written, no barrier, no DP031)."""
    functions = barriers.facts.uniform.index.functions
    for call in walk(piece, skip_scopes=True):
        if not isinstance(call, cst.Call):
            continue
        found = barriers.saves_elsewhere(call)
        if found:
            return found
        for function in functions.get(callee(call), []):
            if id(function) not in seen:
                seen.add(id(function))
                found = _saver_called(barriers, function.body, seen)
                if found:
                    return found
    return ""


def unsynced_before(barriers: Barriers, load: cst.CSTNode) -> str:
    """The save without a barrier that DP031 names at `load`: the first one that may run
    before it (not one later in the load's own function: an averaging helper's closing save
    of what it loaded), else the first one; "" when none."""
    function = enclosing_function(load, barriers.t)
    for save, why in barriers.unsynced:
        if enclosing_function(save, barriers.t) is not function or barriers.may_follow(save, load):
            return why
    return barriers.unsynced[0][1] if barriers.unsynced else ""


#: Calls opening a file as a `with` item (`open(p, "rb")`, `gzip.open`, `h5py.File`).
_OPENS = frozenset({"open", "File"})


def opening_with(
    statement: cst.BaseStatement, parent: Callable[[cst.CSTNode], cst.CSTNode | None]
) -> cst.With | None:
    """The `with open(path) as f:` whose body `statement` stands in and reads `f` (a load
    from the handle): the barrier before the load must come before the open. Round 36,
    castorini/d-bert@d39fe65: `with open(fn, 'rb') as f: model.load_state_dict(torch.load(
    f))` after a save on rank 0 got its barrier inside the `with`, after the open: a rank
    that came first found no file (FileNotFoundError, 1 run in 3)."""
    block = parent(statement)
    opening = parent(block) if isinstance(block, cst.IndentedBlock) else None
    if not isinstance(opening, cst.With):
        return None
    handles = {
        item.asname.name.value
        for item in opening.items
        if isinstance(item.item, cst.Call)
        and name_of(item.item.func) in _OPENS
        and item.asname is not None
        and isinstance(item.asname.name, cst.Name)
    }
    read = {n.value for n in walk(statement) if isinstance(n, cst.Name)}
    return opening if handles & read else None
