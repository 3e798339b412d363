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
from collections.abc import Callable

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms.rank_zero.file_calls import read_at
from dp2ddp.transforms.rank_zero.side_effects import (
    COPIES,
    MAKEDIRS,
    MKDIR,
    OPEN,
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


def read_attributes(tree: ast.Module, resolved: Callable[[ast.expr], str]) -> frozenset[str]:
    """The attribute names (`cache` of `self.cache`) a method of the module reads a whole
    file at (`h5py.File(self.cache, mode="r")` in a Dataset's `__getitem__`): a file another
    module writes on rank 0 at `obj.cache` may be the one every rank reads here, through the
    object (round 37, Nanne/pytorch-NetVlad@def998e: `train_set.cache = path`, written on
    rank 0 in main.py, read in pittsburgh.py while rank 0 was writing; rank_zero/barriers.py)."""
    found: set[str] = set()
    for node in ast_nodes.listed(tree):
        if isinstance(node, ast.Call):
            called = resolved(node.func)
            read = _read_path(node, called) or _library_read(node, called)
            if (
                isinstance(read, ast.Attribute)
                and isinstance(read.value, ast.Name)
                and read.value.id == "self"
            ):
                found.add(read.attr)
    return frozenset(found)


def _library_read(call: ast.Call, called: str) -> ast.expr | None:
    """The first argument of a library's call that may read a file there (`h5py.File(p,
    mode="r")`), not one whose literal mode writes."""
    if not call.args or isinstance(call.args[0], ast.Starred) or not library_reader(called):
        return None
    mode = call.args[1] if len(call.args) > 1 else None
    mode = next((k.value for k in call.keywords if k.arg == "mode"), mode)
    if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
        if any(c in mode.value for c in "wax+"):
            return None
    return None if _paths(call, called) else call.args[0]


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
    return call.args[0] if called in TORCH_LOAD else read_at(call, called)


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
