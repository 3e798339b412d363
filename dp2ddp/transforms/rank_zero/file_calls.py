"""The files a module's functions read or write at their parameters: what one module tells
the others (ProgramHints.file_read_by, file_written_by, file_handed_by).

The other way round: a module's top-level function that reads a whole file at one of its
parameters (`def load_cache(path): with open(path, "rb") as f: ...`) is named to the
program's other modules (file_readers), so a module that writes `CACHE` on rank 0 and then
calls `utils.load_cache(CACHE)` sees a read of `CACHE` there, and places the barrier between
(barriers.py; without it rank 1 read a cache rank 0 had not written yet).

And the write side (file_writers, issue 29 item 2): a module's top-level function that
writes a whole file at a parameter (`def build_cache(path): ... pickle.dump(x, open(path,
"wb"))`), or at a fixed path (a literal, or a string constant of its module), is named to
the others: once migrated, rank 0 alone writes it there, so a module that calls
`prep.build_cache(CACHE)` and then reads CACHE (itself, or through another module's reader)
gets a barrier after that call. A reader of a fixed path is named the same way
(`name:=:path`), so `write_stats()` of one module and `read_scale()` of another, both at
"stats.json", meet in the module that calls them.

An object keeps a path it was built with and writes it later (`Prep(out).run()`): its
class's methods are named `Class.method` with the parameter of `__init__` stored in the
attribute they write at (file_paths.read_elsewhere finds the construction of the object
the method is called on).
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable
from functools import partial
from typing import TypeGuard

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms.rank_zero.path_probes import PROBES, creation_guards
from dp2ddp.transforms.rank_zero.side_effects import (
    COPIES,
    READS_AT_FIRST,
    WRITES_AT_FIRST,
    library_reader,
)

#: Calls that read a whole file at their first argument (side_effects.READS_AT_FIRST, as
#: this module's `resolved` spells them; a checkpoint's torch.load is ProgramHints.loaded_by).
_READ_AT_FIRST = READS_AT_FIRST | {"open", "builtins.open", "io.open"}


def file_calls(
    tree: ast.Module, resolved: Callable[[ast.expr], str]
) -> tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str]]:
    """The module's file_readers, file_writers, file_handers and file_forwards, from one
    walk of each of its functions (each call's name resolved once for them all):

    - file_readers: `name:position:parameter` for each top-level function of the module
      that reads a whole file at a parameter it never rebinds, or under it (`open(path)`,
      `open(path, "rb")`, `np.load(os.path.join(folder, name))`, `pd.read_csv(path)`), or
      asks whether a file is there or what a folder holds (`os.path.exists(path)`,
      `os.listdir(folder)`: the other ranks see it missing or partial and take another
      branch), and for each top-level class whose `__init__` reads one (named by the
      class, the position not counting `self`); `name:=:path` for a top-level function
      that reads one at a fixed path.
    - file_writers: as file_readers, for the top-level functions that write a whole file
      (open for writing, np.save and the other WRITES_AT_FIRST; not a checkpoint's
      torch.save, which ProgramHints.saved_by names) at a parameter or at a fixed path.
    - file_handers: as file_readers, for the top-level functions that hand a parameter (or
      a path under it) first to a library's function no table here lists, which may read a
      file there (`sed_eval.io.load_event_list(prediction_csv_path)` in qiuqiangkong/
      sound_event_detection_dcase2017_task4@823af88 utils/utilities.py:
      official_evaluate(), called right after write_submission() wrote that path on rank
      0; stop 52 w4). Not a function of the module itself, which reads what its own
      entries say (the forwards join them): C-3-Framework's `update_model(..., log_file)`
      handing the log to its `logger_txt`, which only appends, was taken for a read of the
      log, and every rank-0 append through it for a write read by every rank (a false
      DP054 at each call, or a needless barrier; gjy3035/C-3-Framework@f8e21fa, round 13
      v2-C).
    - file_forwards: `name:position:parameter<callee@slot` for each top-level function
      handing its parameter (or a path under it) on to a function called by name
      (`callee`) at a position or keyword (`slot`): path_chains.py makes `name` a reader
      (writer, hander) where `callee` is one at that slot, in any module of the program.

    A path is under a parameter through the function's plain bindings (`filename =
    os.path.join(folder, name)`, then `Image.open(filename)`), an item of a dict display
    or comprehension (`save_dirs = {t: os.path.join(p["save_dir"], t) for t in tasks}`,
    then `np.save(os.path.join(save_dirs[task], ...))` writes under `p`) and a subscript
    of it (`p["save_dir"]`): SimonVandenhende/Multi-Task-Learning-PyTorch@ed3d9ac's
    predictions, written on rank 0 and read two calls deep (stop 53 s2)."""
    readers, writers, handers, forwards = _file_calls(
        tree, resolved, (_read_or_probed_at, _written_at, _handed_at)
    )
    return readers, writers, handers, forwards


def read_at(call: ast.Call, called: str) -> ast.expr | None:
    if called not in _READ_AT_FIRST or (called.endswith("open") and not _reads(call)):
        return None
    return call.args[0]


def _read_or_probed_at(call: ast.Call, called: str) -> ast.expr | None:
    return call.args[0] if called in PROBES else read_at(call, called)


def _handed_at(call: ast.Call, called: str) -> ast.expr | None:
    if called in _READ_AT_FIRST or not library_reader(called):
        return None
    return call.args[0]


def _written_at(call: ast.Call, called: str) -> ast.expr | None:
    if called in WRITES_AT_FIRST or (called in _OPENS and _writes(call)):
        return call.args[0]
    if called in COPIES and len(call.args) > 1:
        return call.args[1]  # a copy or a link, made at its second argument (round 36)
    return None


#: How many plain bindings a path is followed through to a parameter in one function.
_BINDINGS_DEEP = 4


def _file_calls(
    tree: ast.Module,
    resolved: Callable[[ast.expr], str],
    kinds: tuple[Callable[[ast.Call, str], ast.expr | None], ...],
) -> list[frozenset[str]]:
    """The entries of file_calls' facts, one per kind, then the forwards: a kind gives the
    path a call reads (writes, hands on) a whole file at, or None. The first kind (reads)
    looks into the top-level classes' `__init__` too (`CachedSet(CACHE)`); the others and
    the forwards into the top-level functions alone."""
    constants = _string_constants(tree)
    # the module's own functions and classes: a call of one hands its argument to no
    # library (its reads are its own entries, joined by the forwards: path_chains.py)
    own = {
        s.name
        for s in tree.body
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }
    found: list[set[str]] = [set() for _ in kinds]
    forwards: set[str] = set()
    functions: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef, int, _Kept]] = []
    memo: dict[int, list[ast.AST]] = {}  # each function's nodes, walked once
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.append((statement.name, statement, 0, {}))
        elif isinstance(statement, ast.ClassDef):
            functions += _class_functions(statement, resolved, memo)
    for name, function, skipped, held in functions:
        params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
        walked = _walk(function, memo)
        names = [n for n in walked if isinstance(n, ast.Name)]
        stored = {n.id for n in names if isinstance(n.ctx, ast.Store)}
        bound = _bindings(walked)
        kept: _Kept = (
            held
            if held  # a method: only what `__init__` stored in the object
            else {p: (params.index(p) - skipped, p) for p in params if p not in stored}
        )
        if skipped and "." not in name:
            bound.update(_held_values(function, memo))  # `self.path = path`, then `open(self.path)`
        entries_at = partial(_entries_at, name, kept, bound, resolved)

        # `CachedSet(CACHE)`: a class reads or writes when built; a method only writes
        applied = list(zip(kinds[:2] if skipped else kinds, found, strict=False))
        if "." in name:
            applied = applied[1:2]
        guards = creation_guards(walked, resolved)
        for call in walked:
            if not isinstance(call, ast.Call) or id(call) in guards:
                continue
            if not call.args and not call.keywords:
                continue
            called = resolved(call.func)
            if kept and not _library(called):
                forwards.update(_forwards(call, entries_at))
            if not call.args:
                continue
            mine = isinstance(call.func, ast.Name) and call.func.id in own
            for path_of, entries in applied:
                if mine and path_of is _handed_at:
                    continue
                first = path_of(call, called)
                if first is None:
                    continue
                fixed = _fixed(first, constants, stored)
                if fixed is not None and not skipped:
                    entries.add(f"{name}:=:{fixed}")
                entries.update(entries_at(first))
    return [*(frozenset(entries) for entries in found), frozenset(forwards)]


#: The names a function's path may be under that stand for a parameter of its entry, each
#: with (position, parameter): the function's own parameters, or for a method the
#: attributes its object's `__init__` stored a parameter in (`self.out_file`).
_Kept = dict[str, tuple[int, str]]


def _class_functions(
    cls: ast.ClassDef, resolved: Callable[[ast.expr], str], memo: dict[int, list[ast.AST]]
) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef, int, _Kept]]:
    """A top-level class's `__init__` (named by the class: `CachedSet(CACHE)` reads when
    built) and each other method (named `Class.method`) with the attributes `__init__`
    stored one of its parameters in and nothing else stores: a method writing at
    `self.out_file` writes at what the construction passed (round 33,
    lonePatient/char-cnn-text-classification@814ad1b: a preprocessor object of one module
    wrote its file on rank 0 in `run()`, a dataset of another module read it in its
    `__init__` through `self.data_path`, and nothing put a barrier between: rank 1's
    FileNotFoundError on a first run)."""
    methods = [s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
    init = next((m for m in methods if m.name == "__init__"), None)
    if init is None or not init.args.args:
        return []
    found: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef, int, _Kept]] = [
        (cls.name, init, 1, {})
    ]
    params = [a.arg for a in init.args.args]
    walked = _walk(init, memo)
    rebound = {n.id for n in walked if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound = _bindings(walked)
    stores = [
        (method, target.attr)
        for method in methods
        for node in _walk(method, memo)
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign))
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if _self_attribute(target, method)
    ]
    once = {a for m, a in stores if m is init and sum(1 for _, b in stores if b == a) == 1}
    held: dict[str, tuple[int, str]] = {}
    for attr, values in _held_values(init, memo).items():
        if attr.partition(".")[2] not in once:
            continue
        roots = _roots(values[0], resolved, bound, _BINDINGS_DEEP)
        fed = sorted(p for p in roots if p in params[1:] and p not in rebound)
        if len(fed) == 1:
            held[attr.partition(".")[2]] = (params.index(fed[0]) - 1, fed[0])
    reached = _reached_from(init, methods, memo)
    for method in methods:
        if method is init or not method.args.args or method.decorator_list or not held:
            continue
        own = method.args.args[0].arg
        if not any(  # reads none of them: no path of the construction's in it
            isinstance(n, ast.Attribute)
            and n.attr in held
            and isinstance(n.value, ast.Name)
            and n.value.id == own
            for n in _walk(method, memo)
        ):
            continue
        kept = {f"{own}.{attr}": slot for attr, slot in held.items()}
        found.append((f"{cls.name}.{method.name}", method, 1, kept))
        if method.name in reached:  # run by the construction: `__init__` -> self.reset()
            found.append((cls.name, method, 1, kept))
    return found


def _reached_from(
    init: ast.FunctionDef | ast.AsyncFunctionDef,
    methods: list[ast.FunctionDef | ast.AsyncFunctionDef],
    memo: dict[int, list[ast.AST]],
) -> set[str]:
    """The methods `__init__` runs through `self.m(...)`, at any depth (a dataset's
    `__init__` -> `self.reset()` -> `self.build_examples()` -> `self.read_data()` reading
    `self.data_path`: char-cnn's CreateDataset reads its file when built)."""
    by_name = {m.name: m for m in methods}
    seen: set[str] = set()
    todo = [init]
    while todo:
        function = todo.pop()
        own = function.args.args[0].arg if function.args.args else ""
        for node in _walk(function, memo):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == own
                and node.func.attr in by_name
                and node.func.attr not in seen
            ):
                seen.add(node.func.attr)
                todo.append(by_name[node.func.attr])
    return seen


def _walk(function: ast.AST, memo: dict[int, list[ast.AST]]) -> list[ast.AST]:
    """ast_nodes.walk of `function`, once per file_calls run."""
    if id(function) not in memo:
        memo[id(function)] = ast_nodes.walk(function)
    return memo[id(function)]


def _self_attribute(
    target: ast.expr, method: ast.FunctionDef | ast.AsyncFunctionDef
) -> TypeGuard[ast.Attribute]:
    """`self.x` as a store's target, `self` the method's first parameter."""
    return (
        isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and bool(method.args.args)
        and target.value.id == method.args.args[0].arg
    )


def _held_values(
    init: ast.FunctionDef | ast.AsyncFunctionDef, memo: dict[int, list[ast.AST]]
) -> dict[str, list[ast.expr]]:
    """`self.attr` -> the values `__init__` assigns it (`self.data_path = data_path`): a
    read at `open(self.data_path)` there reads at the parameter."""
    held: dict[str, list[ast.expr]] = {}
    for node in _walk(init, memo):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if _self_attribute(target, init):
                held.setdefault(f"{init.args.args[0].arg}.{target.attr}", []).append(node.value)
    return held


def _entries_at(
    name: str,
    kept: _Kept,
    bound: dict[str, list[ast.expr]],
    resolved: Callable[[ast.expr], str],
    path: ast.expr,
) -> list[str]:
    """`name:position:parameter` for each parameter of function `name` (`kept`: those it
    never rebinds, at their positions) that `path` is under."""
    roots = _roots(path, resolved, bound, _BINDINGS_DEEP)
    found = [
        f"{name}:{kept[p][0]}:{kept[p][1]}" for p in sorted(roots & kept.keys()) if kept[p][0] >= 0
    ]
    kind = extension(path, resolved, bound, _BINDINGS_DEEP) if found else ""
    if kind:  # `:.png`: the files under it that the function reads (writes)
        return [f"{entry}:{kind}" for entry in found]
    return found


def extension(
    path: ast.expr,
    resolved: Callable[[ast.expr], str],
    bound: dict[str, list[ast.expr]],
    depth: int,
) -> str:
    """The literal extension a path joined under a folder ends with (`os.path.join(folder,
    name + ".png")`, `"%d.npy" % i`, `f"{folder}/{i}.json"`, through the function's plain
    bindings, all alike), "" when unknown: files of two kinds are two files."""
    if isinstance(path, ast.Constant) and isinstance(path.value, str):
        tail = path.value.rpartition("/")[2]
        kind = tail[tail.rfind(".") :] if "." in tail else ""
        return kind if kind[1:].isalnum() else ""
    if isinstance(path, ast.Call) and path.args and resolved(path.func) == "os.path.join":
        return extension(path.args[-1], resolved, bound, depth)
    if isinstance(path, ast.Call) and isinstance(path.func, ast.Attribute):
        return (
            extension(path.func.value, resolved, bound, depth) if path.func.attr == "format" else ""
        )
    if isinstance(path, ast.BinOp):
        side = path.left if isinstance(path.op, ast.Mod) else path.right
        return extension(side, resolved, bound, depth)
    if isinstance(path, ast.JoinedStr) and path.values:
        return extension(path.values[-1], resolved, bound, depth)
    if isinstance(path, ast.Name) and depth > 0 and path.id in bound:
        kinds = {extension(v, resolved, bound, depth - 1) for v in bound[path.id]}
        return kinds.pop() if len(kinds) == 1 else ""
    return ""


#: Libraries (and the builtins) whose functions are not the program's: no link to them.
_LIBRARIES = frozenset(
    {"os", "sys", "json", "math", "time", "re", "logging", "shutil", "glob", "pathlib"}
    | {"torch", "numpy", "pandas", "scipy", "cv2", "PIL", "random", "collections", "itertools"}
)
_BUILTINS = frozenset(dir(builtins))


def _library(called: str) -> bool:
    return called in _BUILTINS or called.partition(".")[0] in _LIBRARIES


def _forwards(call: ast.Call, entries_at: Callable[[ast.expr], list[str]]) -> list[str]:
    """`entry<callee@slot` for each argument of a call of a function by name (`f(...)`,
    `m.f(...)`) under a parameter of the calling function (`entry`, as file_calls names
    it): the callee's reading (writing) at that slot is the caller's at the parameter."""
    func = call.func
    callee = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    if not callee:
        return []
    found: list[str] = []
    for position, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        found += [f"{entry}<{callee}@{position}" for entry in entries_at(arg)]
    for keyword in call.keywords:
        if keyword.arg is not None:
            found += [f"{entry}<{callee}@{keyword.arg}" for entry in entries_at(keyword.value)]
    return found


def _roots(
    path: ast.expr,
    resolved: Callable[[ast.expr], str],
    bound: dict[str, list[ast.expr]],
    depth: int,
) -> set[str]:
    """The names a path is under (`_under`): a name itself, and what its plain bindings in
    the function are under (`depth` bindings deep); a subscript's holder (`p["save_dir"]`,
    `save_dirs[task]`); the values of a dict display or comprehension."""
    path = _under(path, resolved)
    if isinstance(path, ast.Subscript):
        return _roots(path.value, resolved, bound, depth)
    if isinstance(path, ast.DictComp):
        return _roots(path.value, resolved, bound, depth)
    if isinstance(path, ast.Attribute) and isinstance(path.value, ast.Name):
        held = f"{path.value.id}.{path.attr}"  # `self.out_file`: what `__init__` stored
        if depth <= 0 or held not in bound:
            return {held}
        return {held}.union(*(_roots(v, resolved, bound, depth - 1) for v in bound[held]))
    if isinstance(path, ast.Dict):
        return set().union(*(_roots(v, resolved, bound, depth) for v in path.values))
    if not isinstance(path, ast.Name):
        return set()
    if depth <= 0 or path.id not in bound:
        return {path.id}
    values = bound[path.id]
    return {path.id}.union(*(_roots(v, resolved, bound, depth - 1) for v in values))


def _under(path: ast.expr, resolved: Callable[[ast.expr], str]) -> ast.expr:
    """The folder a joined path starts from (`os.path.join(folder, name)`, `folder /
    name`, `folder + name`, `f"{folder}/{name}"`): a file at it is under that folder, so a
    function writing (reading) there writes (reads) under its parameter; else `path`."""
    if isinstance(path, ast.Call) and path.args and resolved(path.func) == "os.path.join":
        return _under(path.args[0], resolved)
    if isinstance(path, ast.BinOp) and isinstance(path.op, (ast.Div, ast.Add)):
        return _under(path.left, resolved)
    if isinstance(path, ast.JoinedStr) and path.values:
        head = path.values[0]
        if isinstance(head, ast.FormattedValue):
            return _under(head.value, resolved)
    return path


def _bindings(walked: list[ast.AST]) -> dict[str, list[ast.expr]]:
    """The values each local name is bound to by a plain `name = value` (in any branch:
    `elif mode == 'label': id_path = unlabeled_id_path`, then `open(id_path)`): a read at
    the name may read the file at any of them. A name also bound to something else still
    may (LiheYoung/ST-PlusPlus@f4e7a57 dataset/semi.py: the ids file select_reliable()
    wrote on rank 0 was read there by rank 1 with no barrier between, half-written; class
    v1-F of stop 42)."""
    bound: dict[str, list[ast.expr]] = {}
    for node in walked:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            bound.setdefault(node.targets[0].id, []).append(node.value)
    return bound


#: open() as a module's `resolved` spells it.
_OPENS = frozenset({"open", "builtins.open", "io.open"})


def _string_constants(tree: ast.Module) -> dict[str, str]:
    """The module's top-level names bound once, to a string literal."""
    bound: dict[str, list[ast.expr]] = {}
    for statement in tree.body:
        if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                for node in ast_nodes.walk(target):
                    if isinstance(node, ast.Name) and statement.value is not None:
                        bound.setdefault(node.id, []).append(statement.value)
    return {
        name: values[0].value
        for name, values in bound.items()
        if len(values) == 1
        and isinstance(values[0], ast.Constant)
        and isinstance(values[0].value, str)
    }


def _fixed(path: ast.expr | None, constants: dict[str, str], stored: set[str]) -> str | None:
    """The path a call's argument names in every call of its function: a string literal, or
    a string constant of the module the function does not rebind; None otherwise."""
    if isinstance(path, ast.Constant) and isinstance(path.value, str):
        return path.value
    if isinstance(path, ast.Name) and path.id not in stored:
        return constants.get(path.id)
    return None


def _writes(call: ast.Call) -> bool:
    """An `open(...)` call with a literal mode that writes (w, a, x or +)."""
    mode = call.args[1] if len(call.args) > 1 else None
    mode = next((k.value for k in call.keywords if k.arg == "mode"), mode)
    return (
        isinstance(mode, ast.Constant)
        and isinstance(mode.value, str)
        and any(c in mode.value for c in "wax+")
    )


def _reads(call: ast.Call) -> bool:
    """An `open(...)` call that reads: no mode, or a literal one without w, a, x or +."""
    mode = call.args[1] if len(call.args) > 1 else None
    mode = next((k.value for k in call.keywords if k.arg == "mode"), mode)
    if mode is None:
        return True
    if not isinstance(mode, ast.Constant) or not isinstance(mode.value, str):
        return False
    return not any(c in mode.value for c in "wax+")
