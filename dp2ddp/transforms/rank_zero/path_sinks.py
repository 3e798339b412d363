"""Attributes that name a path a module makes or writes: the sinks one module gives another.

A run directory is often named in one module and made in another: `opts.run_name =
"{}_{}".format(opts.run_name, time.strftime(...))` and `opts.save_dir =
os.path.join(..., opts.run_name)` in options.py, `os.makedirs(opts.save_dir)` in run.py
(wouterkool/attention-learn-to-route@c9abf41). The module that reads the clock has no sink
of its own, and the one with the sink sees only an attribute of a parameter. Each module
tells the program which attribute names its sinks' paths read (`save_dir`); a module that
assigns such an attribute from a per-process read makes that read rank 0's value
(run_dir.py). By name: an attribute of that name assigned from a per-process read names a
run-specific path in any object, so sharing rank 0's reading costs nothing where it was not
needed.

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

And a value handed in (path_parameters, stop 49 a4-B): a function's parameter that names a
path the function makes, writes or reads whole, in any part of it (zoogzog/chexnet@bbe30b5
ChexnetTrainer.py:104: `train(..., launchTimestamp, ...)` saves `'m-' + launchTimestamp +
'.pth.tar'`; `test(pathModel, ...)` loads `pathModel`), is named to the program's other
modules, so a module handing it a clock stamp (Main.py:23-57: `timestampLaunch =
time.strftime(...)`) makes that read rank 0's value (run_dir.py), as for a path of its own.

Attributes reach those sinks through other attributes too (attribute_flows, named_through):
an attribute copied into one a path is made from (`self.exp_name = cfg.EXP_NAME`), or handed
to a parameter a path is made from (`logger(self.exp_path, self.exp_name)`), names a path
itself, so the config module assigning `__C.EXP_NAME` from the clock at import makes that
reading rank 0's (ddp_rank0_value needs no process group: round 13 v2-E, stop 61). A dict
item by a string key and a function's return carry a value as an attribute does (stop 62:
`cfg["exp_name"] = time.strftime(...)` read as `self.exp_name = cfg["exp_name"]`; `def
run_name(c): return "run-" + c.stamp` read as `naming.run_name(cfg)` in a path).
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable
from functools import partial

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms.rank_zero.path_probes import PROBES, creation_guards
from dp2ddp.transforms.rank_zero.side_effects import (
    COPIES,
    MAKEDIRS,
    MKDIR,
    OPEN,
    READS_AT_FIRST,
    SUMMARY_WRITER,
    TORCH_LOAD,
    TORCH_SAVE,
    WRITER_CONFIGURE,
    WRITES_AT_FIRST,
    library_reader,
)

#: Calls that make a directory or write a file at their first argument (side_effects.py's
#: tables, the one list of what writes where).
_AT_FIRST = MAKEDIRS | MKDIR | WRITES_AT_FIRST | SUMMARY_WRITER | WRITER_CONFIGURE


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


def _read_at(call: ast.Call, called: str) -> ast.expr | None:
    if called not in _READ_AT_FIRST or (called.endswith("open") and not _reads(call)):
        return None
    return call.args[0]


def _read_or_probed_at(call: ast.Call, called: str) -> ast.expr | None:
    return call.args[0] if called in PROBES else _read_at(call, called)


def _handed_at(call: ast.Call, called: str) -> ast.expr | None:
    if called in _READ_AT_FIRST or not library_reader(called):
        return None
    return call.args[0]


def _written_at(call: ast.Call, called: str) -> ast.expr | None:
    if called in WRITES_AT_FIRST or (called in _OPENS and _writes(call)):
        return call.args[0]
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
    functions: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef, int]] = []
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.append((statement.name, statement, 0))
        elif isinstance(statement, ast.ClassDef):  # `CachedSet(CACHE)`: reads alone
            functions += [
                (statement.name, s, 1)
                for s in statement.body
                if isinstance(s, ast.FunctionDef) and s.name == "__init__"
            ]
    for name, function, skipped in functions:
        params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
        walked = ast_nodes.walk(function)
        names = [n for n in walked if isinstance(n, ast.Name)]
        stored = {n.id for n in names if isinstance(n.ctx, ast.Store)}
        bound = _bindings(walked)
        kept = {p: params.index(p) - skipped for p in params if p not in stored}
        entries_at = partial(_entries_at, name, kept, bound, resolved)

        applied = list(zip(kinds[:1] if skipped else kinds, found, strict=False))
        guards = creation_guards(walked, resolved)
        for call in walked:
            if not isinstance(call, ast.Call) or id(call) in guards:
                continue
            if not call.args and not call.keywords:
                continue
            called = resolved(call.func)
            if not skipped and kept and not _library(called):
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


def _entries_at(
    name: str,
    kept: dict[str, int],
    bound: dict[str, list[ast.expr]],
    resolved: Callable[[ast.expr], str],
    path: ast.expr,
) -> list[str]:
    """`name:position:parameter` for each parameter of function `name` (`kept`: those it
    never rebinds, at their positions) that `path` is under."""
    roots = _roots(path, resolved, bound, _BINDINGS_DEEP)
    found = [f"{name}:{kept[p]}:{p}" for p in sorted(roots & kept.keys()) if kept[p] >= 0]
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


def path_attributes(tree: ast.Module, resolved: Callable[[ast.expr], str]) -> frozenset[str]:
    """The attribute names (`save_dir` of `opts.save_dir`) in the path of each call of the
    module that makes a directory or writes a file (open for writing, torch.save,
    os.makedirs, `Path(...).mkdir()`, a SummaryWriter's log directory), and `[key]` for a
    string key read by item (`config["log_name"]`: a config class's `__getitem__` hands its
    attributes on by key, handed_sinks.attribute_sinks). The path is followed through the
    module's plain name bindings (`log_name = config["log_name"]; d = os.path.join("ckpt",
    log_name); os.makedirs(d)`, Debatrix/AquulaCam@28b2f97 base_train.py, stop 57 v1-C).
    `resolved` gives a call target's dotted name through the module's imports."""
    listed = list(ast_nodes.listed(tree))
    paths = [
        path
        for call in listed
        if isinstance(call, ast.Call)
        for path in _paths(call, resolved(call.func))
    ]
    if not paths:
        return frozenset()
    bound: dict[str, list[ast.expr]] = {}
    for node in listed:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    bound.setdefault(target.id, []).append(node.value)
    found: set[str] = set()
    seen: set[str] = set()
    while paths:
        for node in ast_nodes.walk(paths.pop()):
            if isinstance(node, ast.Attribute):
                found.add(node.attr)
            elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
                if isinstance(node.slice.value, str):
                    found.add(f"[{node.slice.value}]")
            elif isinstance(node, ast.Name) and node.id in bound and node.id not in seen:
                seen.add(node.id)
                paths.extend(bound[node.id])
            if isinstance(node, ast.Call):  # its return names the path (attribute_flows)
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                found.update([f"{name}()"] if name else [])
    return frozenset(found)


def _paths(call: ast.Call, name: str) -> list[ast.expr]:
    positional = [a for a in call.args if not isinstance(a, ast.Starred)]
    keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
    if name in COPIES:  # both ends: the file copied and the copy
        ends = [*positional[:2], *(keywords[k] for k in ("src", "dst") if k in keywords)]
        return ends[:2]
    if name in _AT_FIRST:
        named = (keywords.get(k) for k in ("log_dir", "logdir", "name"))
        first = positional[0] if positional else next((v for v in named if v), None)
        return [first] if first is not None else []
    if name in TORCH_SAVE:
        second = positional[1] if len(positional) > 1 else keywords.get("f")
        return [second] if second is not None else []
    if (name in OPEN or name == "open") and positional:
        mode = positional[1] if len(positional) > 1 else keywords.get("mode")
        writes = isinstance(mode, ast.Constant) and isinstance(mode.value, str)
        if writes and any(c in mode.value for c in "wax+"):  # type: ignore[union-attr]
            return [positional[0]]
        return []
    if isinstance(call.func, ast.Attribute) and call.func.attr == "mkdir":
        return [call.func.value]
    return []


def path_parameters(tree: ast.Module, resolved: Callable[[ast.expr], str]) -> frozenset[str]:
    """`name:position:parameter` for each parameter of a top-level function, or of a method
    of a top-level class (`position` not counting a first `self`/`cls`: a call through an
    object; a method without one is called through its class, as written), that some path
    the function makes, writes or reads whole holds, directly or through a local name
    bound from it (`path = os.path.join(root, stamp)`, at any remove): the function names
    a shared file with the value a caller hands it. `name:position:parameter:read` where
    every such path only reads: handed a sample's own file by a Dataset's per-sample code,
    the argument names this rank's data, not a file the ranks share
    (handed_sinks.argument_sinks; round 16, IDKiro/CBDNet-pytorch's `read_img`)."""
    calls = [n for n in ast_nodes.listed(tree) if n.__class__ is ast.Call]
    if not any(_shared_paths(c, resolved(c.func)) for c in calls):
        return frozenset()  # the module names no path: its functions are not walked
    functions: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.append((statement.name, statement))
        elif isinstance(statement, ast.ClassDef):
            functions += [
                (s.name, s)
                for s in statement.body
                if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
            ]
    found: set[str] = set()
    for name, function in functions:
        params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
        if not params:
            continue
        walked = ast_nodes.walk(function)
        paths: list[tuple[ast.expr, bool]] = []  # (the path, made or written there)
        for call in walked:
            if isinstance(call, ast.Call):
                called = resolved(call.func)
                paths += [(path, True) for path in _paths(call, called)]
                read = _read_path(call, called)
                paths += [(read, False)] if read is not None else []
        if not paths:
            continue
        holders = _holders(walked, set(params))
        skipped = 1 if params[0] in ("self", "cls") else 0
        kinds: dict[str, bool] = {}  # each entry: made or written at one of its paths
        for path, made in paths:
            for node in ast_nodes.walk(path):
                if isinstance(node, ast.Name) and node.id in holders:
                    for param in holders[node.id]:
                        position = params.index(param) - skipped
                        if position >= 0:
                            entry = f"{name}:{position}:{param}"
                            kinds[entry] = kinds.get(entry, False) or made
        found.update(entry if made else f"{entry}:read" for entry, made in kinds.items())
    return frozenset(found)


def _shared_paths(call: ast.Call, called: str) -> list[ast.expr]:
    """The paths a call makes or writes (`_paths`) or reads whole (a checkpoint's
    torch.load, open for reading, np.load, pd.read_csv...)."""
    paths = _paths(call, called)
    read = _read_path(call, called)
    return [*paths, read] if read is not None else paths


def _read_path(call: ast.Call, called: str) -> ast.expr | None:
    """The path a call reads whole (a checkpoint's torch.load, open for reading, ...)."""
    if not call.args or isinstance(call.args[0], ast.Starred):
        return None
    return call.args[0] if called in TORCH_LOAD else _read_at(call, called)


def _holders(walked: list[ast.AST], params: set[str]) -> dict[str, set[str]]:
    """For each name of the function that may hold a parameter's value in part: the
    parameter itself, and a name bound from a value reading one (a fixed point over the
    function's plain bindings)."""
    holders: dict[str, set[str]] = {p: {p} for p in params}
    bindings = [
        (target.id, {n.id for n in ast_nodes.walk(node.value) if isinstance(n, ast.Name)})
        for node in walked
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value is not None
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name)
    ]
    changed = True
    while changed:
        changed = False
        for target, reads in bindings:
            held = set().union(*(holders.get(r, set()) for r in reads)) - holders.get(target, set())
            if held:
                holders.setdefault(target, set()).update(held)
                changed = True
    return holders


def attribute_flows(tree: ast.Module) -> frozenset[str]:
    """How the module hands attribute values on, for path_attributes across attributes:
    `a<b` for each store `x.a = <value reading .b>` (`self.exp_name = cfg.EXP_NAME`), and
    `f@slot<b` for each argument reading `.b` handed to a function called by name at a
    position or keyword (`logger(self.exp_path, self.exp_name)`: `logger@1<exp_name`). An
    attribute a path is made from names a path in every value it is copied from, and so
    does one handed to a parameter a path is made from (path_parameters): named_through.
    A dict item by a string key is a slot too (`[k]`: `cfg["exp_name"] = ...`, read as
    `self.exp_name = cfg["exp_name"]`), and so is a function's return (`f()`: `def
    run_name(c): return "run-" + c.STAMP` read as `name = utils.run_name(cfg)`), stop 62:
    a clock read stored in a config dict or handed back by a function of another module
    named each rank's own run folder."""
    found: set[str] = set()
    for node in ast_nodes.listed(tree):
        if isinstance(node, ast.Assign):
            targets = [t for t in map(_slot, node.targets) if t]
            found.update(f"{a}<{b}" for a in targets for b in _read_attributes(node.value))
        elif isinstance(node, ast.Call):
            func = node.func
            callee = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            slots = [(str(i), a) for i, a in enumerate(node.args)]
            slots += [(k.arg, k.value) for k in node.keywords if k.arg is not None]
            for slot, value in slots if callee else ():
                found.update(f"{callee}@{slot}<{b}" for b in _read_attributes(value))
    for names, value in _returns(tree):
        found.update(f"{name}()<{b}" for b in _read_attributes(value) for name in names)
    return frozenset(found)


def _returns(tree: ast.Module) -> list[tuple[tuple[str, ...], ast.expr]]:
    """Each `return <value>` of the module with the names of the functions around it (a
    function's returns are those of the functions it holds too): statements only are read
    (their bodies, branches, handlers and cases), not every node of each function again."""
    found: list[tuple[tuple[str, ...], ast.expr]] = []
    todo: list[tuple[ast.AST, tuple[str, ...]]] = [(s, ()) for s in tree.body]
    while todo:
        statement, names = todo.pop()
        if isinstance(statement, ast.Return):
            if statement.value is not None and names:
                found.append((names, statement.value))
            continue
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names = (*names, statement.name)
        for field in _BODIES:
            for item in getattr(statement, field, ()):
                todo.append((item, names))
    return found


#: The fields of a statement (or a handler, a match case) that hold statements (or
#: handlers, cases): nothing else holds a `return`.
_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")


def _slot(target: ast.expr) -> str:
    """The slot a store fills: `a` of `x.a`, `[k]` of `x["k"]`; "" for any other."""
    if isinstance(target, ast.Attribute):
        return target.attr
    return _key(target)


def _key(node: ast.AST) -> str:
    """`[k]` of `x["k"]` (a string key that the flows' text can carry), `[=name]` of
    `x[name]` (a key known only at run time, by its spelling: a plain or dotted name,
    `cfg[KEY] = time.strftime(...)` read elsewhere as `cfg[KEY]`, stop 63 s2), else ""."""
    if not isinstance(node, ast.Subscript):
        return ""
    if isinstance(node.slice, ast.Constant):
        key = node.slice.value
        if isinstance(key, str) and not any(c in key for c in "<@:"):
            return f"[{key}]"
    elif (parts := ast_nodes.dotted(node.slice)) is not None:
        return f"[={'.'.join(parts)}]"
    return ""


#: The nodes _read_attributes reads (every other node is skipped by its class alone).
_READ_KINDS = frozenset({ast.Call, ast.Attribute, ast.Subscript})


def _read_attributes(value: ast.expr) -> set[str]:
    """The attribute names a value reads (not a called method's), the string keys it reads
    items by (`[k]`) and the functions it calls (`f()`, by their last name). One walk:
    breadth-first, a call comes before its callee."""
    called: set[int] = set()
    found: set[str] = set()
    for n in ast_nodes.walk(value):
        if n.__class__ not in _READ_KINDS:
            continue
        if isinstance(n, ast.Call):
            called.add(id(n.func))
            name = n.func.id if isinstance(n.func, ast.Name) else getattr(n.func, "attr", "")
            if name:
                found.add(f"{name}()")
        elif isinstance(n, ast.Attribute):
            if id(n) not in called and isinstance(n.ctx, ast.Load):
                found.add(n.attr)
        elif isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load) and _key(n):
            found.add(_key(n))
    return found


def named_through(
    named: frozenset[str], flows: frozenset[str], parameters: frozenset[str]
) -> frozenset[str]:
    """`named` (path_attributes of the program) with every attribute whose value reaches
    one of them, or a parameter of `parameters` (`name:position:parameter`), through the
    program's attribute_flows: gjy3035/C-3-Framework@f8e21fa's config module names the run
    `__C.EXP_NAME = now + ...` from `time.strftime(...)`, its trainer copies it (`self.
    exp_name = cfg.EXP_NAME`) and hands it to `logger(self.exp_path, self.exp_name, ...)`,
    which makes the run folder from its parameters: EXP_NAME names a path, and its clock
    read is rank 0's (round 13 v2-E, stop 61; before: each rank's own minute)."""
    slots = set()
    for entry in parameters:
        name, position, parameter = entry.split(":", 3)[:3]
        slots |= {f"{name}@{position}", f"{name}@{parameter}"}
    copied: dict[str, set[str]] = {}
    found = set(named)
    for flow in flows:
        target, _, source = flow.partition("<")
        if target in slots:
            found.add(source)
        elif "@" not in target:
            copied.setdefault(target, set()).add(source)
    todo = list(found)
    while todo:
        for source in copied.get(todo.pop(), ()):
            if source not in found:
                found.add(source)
                todo.append(source)
    return frozenset(found)
