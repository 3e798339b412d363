"""Which file a call writes or reads: the argument (whole_file_path, for run_dir.py too), and
the texts its path is matched by (file_path, read_elsewhere: barriers.py).

A write: open for writing, np.save and the other WRITES_AT_FIRST, a data frame's `.to_csv`,
a pathlib path's `.write_text()` or `.open("wb")`. A read: open for reading, np.load and the
other READS_AT_FIRST, `.read_text()`, `.open()`, and a call of another module's function that
reads a file at one of its parameters (`utils.load_cache(CACHE)`: ProgramHints.file_read_by,
found by file_calls.file_calls). The texts come from path_texts.py.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.transforms._support.names import DDP_WRAPS
from dp2ddp.transforms._support.nodes import enclosing_function
from dp2ddp.transforms.analysis.module_index import ModuleIndex, argument
from dp2ddp.transforms.rank_zero.edits import callee
from dp2ddp.transforms.rank_zero.file_writes import path_open_for_writing
from dp2ddp.transforms.rank_zero.path_forms import form_within, path_form
from dp2ddp.transforms.rank_zero.path_mentions import mentioned_forms
from dp2ddp.transforms.rank_zero.path_shapes import suffix
from dp2ddp.transforms.rank_zero.path_texts import path_texts
from dp2ddp.transforms.rank_zero.side_effects import (
    COPIES,
    H5PY_FILE,
    OPEN,
    READS_AT_FIRST,
    TORCH_LOAD,
    TORCH_SAVE,
    WRITES_AT_FIRST,
    WRITES_AT_SECOND,
    library_reader,
    open_mode,
)

if TYPE_CHECKING:
    from dp2ddp.transforms.rank_zero import RankZeroOnly

#: Methods that write a file at their first argument (a data frame's), or at their object (a
#: pathlib path's).
_WRITE_METHODS = frozenset({"to_csv", "to_pickle", "to_parquet", "to_json"})
_PATH_WRITE_METHODS = frozenset({"write_text", "write_bytes"})
_PATH_READ_METHODS = frozenset({"read_text", "read_bytes"})


def file_path(
    call: cst.Call, t: RankZeroOnly, index: ModuleIndex, *, write: bool
) -> tuple[str, ...] | None:
    """The texts of the path `call` writes (write=True) or reads a file at
    (path_texts.py); None when it does neither, or the path is not a plain argument. A
    call reading no path argument may read the paths its strings name (path_mentions.py)."""
    first = path_argument(call, t, write=write)
    if first is None:
        return None if write else mentioned_forms(call, t)
    return _with_form(path_texts(first, call, t, t.code, index), first, t)


def path_argument(call: cst.Call, t: RankZeroOnly, *, write: bool) -> cst.BaseExpression | None:
    """The argument (or the pathlib object) `call` writes (write=True) or reads a file at."""
    if any(a.star for a in call.args):
        return None
    names = t.qualified_names(call.func)
    first = whole_file_path(call, names, write=write, torch=not write)  # torch.load: a read
    func = call.func
    method = func.attr.value if isinstance(func, cst.Attribute) else ""
    if first is not None or names & OPEN:
        pass  # a whole file's argument, or an open() in the other mode
    elif names & H5PY_FILE:
        # `h5py.File(path, "w")` writes on rank 0 (file_writes.py; "a", "x" stay on every
        # rank: DP111), `h5py.File(path)` / `(path, "r")` reads
        if open_mode(call) != ("w" if write else "r"):  # its mode is read as open()'s
            return None
        first = argument(call, "name", 0)
    elif write and method in _WRITE_METHODS and not names:
        first = call.args[0].value if call.args and call.args[0].keyword is None else None
    elif isinstance(func, cst.Attribute) and not call.args and not names:
        wanted = _PATH_WRITE_METHODS if write else _PATH_READ_METHODS
        if method not in wanted:
            return None
        first = func.value
    elif isinstance(func, cst.Attribute) and method == "open" and _path_object(names):
        if write != path_open_for_writing(call) or (not write and not _reads_path(call)):
            return None
        first = func.value
    else:
        return None
    return first


def _with_form(
    texts: tuple[str, ...], path: cst.BaseExpression, t: RankZeroOnly
) -> tuple[str, ...]:
    """`texts` and the path's form (path_forms.py: one text for its spellings)."""
    form = path_form(path, t)
    return texts if form is None or form in texts else (*texts, form)


def whole_file_path(
    call: cst.Call, names: set[str], *, write: bool, torch: bool = True
) -> cst.BaseExpression | None:
    """The argument a call writes (write=True) or reads a whole file at, given the call's
    qualified names: `open(p, mode)` by its mode, np.save and the other WRITES_AT_FIRST or
    np.load and the other READS_AT_FIRST at their first argument, and unless `torch` is
    False `torch.save(obj, p)` / `torch.load(p)`, a copy's destination (its second
    argument: `shutil.copyfile(src, dst)` on rank 0, then `open(dst)` on every rank, stop
    54 x5), torchvision's `save_image(x, fp)` at its second (stop 55 v2-C); None for any
    other call."""
    if any(a.star for a in call.args):
        return None
    if write and names & COPIES:
        return argument(call, "dst", 1)
    if write and names & WRITES_AT_SECOND:
        return argument(call, "fp", 1)
    if write and torch and names & TORCH_SAVE:
        for position, arg in enumerate(call.args):
            if (arg.keyword is None and position == 1) or (
                arg.keyword is not None and arg.keyword.value == "f"
            ):
                return arg.value
        return None
    if not call.args or call.args[0].keyword is not None:
        return None
    if names & OPEN:
        mode = open_mode(call)
        if mode is None or any(c in mode for c in "wax+") != write:
            return None
    elif write and not names & WRITES_AT_FIRST:
        return None
    elif not write and not names & (READS_AT_FIRST | TORCH_LOAD if torch else READS_AT_FIRST):
        return None
    return call.args[0].value


def read_elsewhere(
    call: cst.Call, t: RankZeroOnly, index: ModuleIndex, readers: frozenset[str]
) -> tuple[str, ...] | None:
    """The texts of the path a call of another module's function reads a file at
    (`readers`: ProgramHints.file_read_by; `utils.load_cache(CACHE)` reads CACHE); None
    when the call reads none."""
    if not readers or any(a.star for a in call.args):
        return None
    called = called_names(call, t)
    texts: list[str] = []
    for reader in sorted(readers):  # never the hash seed's order
        name, position, parameter = reader.split(":", 2)
        parameter = parameter.partition(":")[0] if position != "=" else parameter
        cls, _, method = name.rpartition(".")
        handed = _construction(call, cls, method, index) if cls else call
        if handed is None or not cls and name not in called:
            continue
        if position == "=":  # a fixed path: its text as a literal spells it
            texts.append(json.dumps(parameter))
            continue
        passed = argument(handed, parameter, int(position))
        if passed is not None:
            texts += _with_form(path_texts(passed, call, t, t.code, index), passed, t)
    return tuple(dict.fromkeys(texts)) or None


def shown_read(t: RankZeroOnly, write: cst.Call, reader: cst.Call, path: str) -> str:
    """How DP054 names the read of a rank-0 write: the path (a text the write and the read
    share); where the reading call is not a read at a path argument, the call too (a
    function handed what the path is made from: `eval_all_results(p)` of `p =
    create_config(...)`, reading under `p["save_dir"]`; SimonVandenhende/Multi-Task-
    Learning-PyTorch@ed3d9ac main.py:119 named `create_config(...)` alone as the read, stop
    54 s3); and the function it is in, where not the write's."""
    shown = f"(`{path}`)"
    if "`" not in path and path_argument(reader, t, write=False) is None:
        shown = f"(`{t.code(reader)}`, a path made from `{path}`)"  # not a lister's
    reading = enclosing_function(reader, t)
    if reading is not None and reading is not enclosing_function(write, t):
        shown += f" in {reading.name.value}(), which may run after this write"
    return shown


def parameters_apart(
    write: cst.Call, reader: cst.Call, text: str, t: RankZeroOnly, called: frozenset[str]
) -> bool:
    """`text` is a parameter of the write's top-level function and of another one around
    the read, neither called in this module: two values their callers pass, paired there
    (ProgramHints.file_written_by / file_read_by: a barrier after the writer's call, or
    DP054 there). Where no barrier can follow the write here, DP054 is the callers' to
    say, not this module's by the parameters' spelling (a barrier that can follow the
    write is placed as before). Round 14 v1-E (jiyanggao/
    Video-Person-ReID@dfe9a02 utils.py): `write_json(obj, fpath)` and `read_json(fpath)`
    got DP054 "no barrier between" beside the caller's barrier; with `read_json(path)`
    none."""
    writing, reading = enclosing_function(write, t), enclosing_function(reader, t)
    if writing is None or reading is None or writing is reading or not text.isidentifier():
        return False
    if not all(isinstance(t.parent(f), cst.Module) for f in (writing, reading)):
        return False  # a method: no caller's file_written_by names it
    if {writing.name.value, reading.name.value} & called:
        return False
    return all(
        any(p.name.value == text for p in (*f.params.params, *f.params.kwonly_params))
        for f in (writing, reading)
    )


def library_read(call: cst.Call, t: RankZeroOnly, index: ModuleIndex) -> tuple[str, ...] | None:
    """The texts of the path a library's function is handed first (`np.fromfile(path)`,
    `sed_eval.io.load_event_list(path)`: side_effects.library_reader), which it may read:
    a rank-0 write of that path gets its barrier before it as before a listed reader. A
    function of the program's own modules is no library's: what it reads its own facts say
    (ProgramHints.file_read_by, path_chains.py), or the program's `validate_results(p, ...)`,
    reading no file, was taken for a read of `p`'s folder (a false DP054,
    SimonVandenhende/Multi-Task-Learning-PyTorch@ed3d9ac main.py:120)."""
    if not call.args or call.args[0].keyword is not None or call.args[0].star:
        return None
    names = t.qualified_names(call.func)
    if not any(library_reader(name) for name in names):
        return None
    program = t.facts.uniform.program_uniform()
    if program is not None and any(
        program[0].defines_function(*name.rpartition(".")[::2]) for name in names
    ):
        return None
    first = call.args[0].value
    return _with_form(path_texts(first, call, t, t.code, index), first, t)


def _construction(call: cst.Call, cls: str, method: str, index: ModuleIndex) -> cst.Call | None:
    """The construction of `cls` whose object `call` calls `method` of (`Prep(out).run()`,
    or `prep.run()` where every binding of `prep` is one): a `Class.method` entry of
    path_sinks writes at what `__init__` was handed; None otherwise."""
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value != method:
        return None
    receiver = func.value
    if isinstance(receiver, cst.Name):
        bindings = [d for d in view(index.module).definitions(receiver) if d.kind != "store"]
        if len(bindings) != 1 or bindings[0].kind != "assign" or bindings[0].element:
            return None
        receiver = bindings[0].value or receiver
    if not isinstance(receiver, cst.Call):
        return None
    built = receiver.func
    name = built.attr.value if isinstance(built, cst.Attribute) else callee(receiver)
    return receiver if name == cls else None


def argument_elsewhere(
    call: cst.Call, t: RankZeroOnly, functions: frozenset[str]
) -> cst.BaseExpression | str | None:
    """The first of arguments_elsewhere (the entries in sorted order: never the hash
    seed's order of the set), or None."""
    return next(iter(arguments_elsewhere(call, t, functions)), None)


def arguments_elsewhere(
    call: cst.Call, t: RankZeroOnly, functions: frozenset[str]
) -> list[cst.BaseExpression | str]:
    """Every argument a call of another module's function (`functions`: ProgramHints.
    file_read_by, file_written_by or path_parameters) reads or writes a file at, or the
    fixed path itself, in the entries' sorted order. All of them, not the first the set
    yields: `merge_saved_traj(temp_save_dir, args.traj_save_path)` names a path by both
    parameters, and the one the set's order (PYTHONHASHSEED) gave first decided whether
    `tempfile.mkdtemp()` became rank 0's value (jagjeet-singh/argoverse-forecasting@27696a1,
    stop 53 w2)."""
    if not functions or any(a.star for a in call.args):
        return []
    called = called_names(call, t)
    found: list[cst.BaseExpression | str] = []
    for function in sorted(functions):
        name, position, parameter = function.split(":", 2)
        parameter = parameter.partition(":")[0] if position != "=" else parameter
        if name not in called:
            continue
        if position == "=":
            found.append(parameter)
            continue
        passed = argument(call, parameter, int(position))
        if passed is not None:
            found.append(passed)
    return found


def folders_elsewhere(
    call: cst.Call, t: RankZeroOnly, readers: frozenset[str]
) -> list[tuple[str, str]]:
    """(the folder's form, the extension read there or "") for each argument of a call of
    another module's function or class that reads a file at or under its parameter, or
    lists it (`readers`: ProgramHints.file_read_by; `Frames(ROOT)` whose `__init__` runs
    `os.listdir(root)`): a file written within that folder may be what it reads, as for a
    listing in this module (path_forms.listing). Stop 61: the entry wrote the frames on
    rank 0 and another module's Dataset listed the folder with no barrier between; rank 1
    listed it half-written."""
    kinds = file_kinds(call, t, readers)
    wanted = next(iter(kinds)).lstrip(".") if len(kinds) == 1 else ""
    found: list[tuple[str, str]] = []
    for passed in arguments_elsewhere(call, t, readers):
        form = path_form(passed, t, bare=True) if isinstance(passed, cst.BaseExpression) else None
        if form is not None and "*" not in form:
            found.append((form, wanted))
    return found


def file_kinds(call: cst.Call, t: RankZeroOnly, functions: frozenset[str]) -> set[str]:
    """The kinds of file (`.png`: file_calls.extension) a call of another module's function
    (`functions`: ProgramHints.file_read_by, file_written_by) reads or writes under the
    folder it is handed; empty when any may be another kind (a whole path, a name not
    spelled with its extension): a write of `.json` files and a read of `.png` files under
    one folder are not the same files (SimonVandenhende/Multi-Task-Learning-PyTorch@ed3d9ac
    eval_all_results: each task's scores written beside the next task's predictions)."""
    called = called_names(call, t)
    kinds = set()
    for function in functions:
        name, position, parameter = function.split(":", 2)
        if name in called and position != "=":
            kinds.add(parameter.partition(":")[2])
    return set() if "" in kinds else kinds


def written_elsewhere(
    call: cst.Call, t: RankZeroOnly, index: ModuleIndex, writers: frozenset[str]
) -> tuple[str, ...] | None:
    """The texts of the path a call of another module's function writes a whole file at
    (`writers`: ProgramHints.file_written_by; `prep.build_cache(CACHE)` writes CACHE, rank 0
    alone once migrated); None when the call writes none. Read as read_elsewhere reads."""
    return read_elsewhere(call, t, index, writers)


def read_within(
    call: cst.Call, t: RankZeroOnly, writers: frozenset[str], reads: dict[str, list[cst.Call]]
) -> list[tuple[str, cst.Call]]:
    """(the read's text, the read) for each read whose path's form lies within the folder a
    call of another module's function writes files under (`writers`: ProgramHints.
    file_written_by; `validate(model, loader, out_dir, tag)` saving
    `os.path.join(out_dir, "pred_" + tag + ".csv")`), of the kind it writes there where
    that is known: the file may be one it wrote, so the read waits for it as for a listing
    of that folder. Stop 72: the entry read back, after its last evaluation, the
    prediction files another module's evaluation had written on rank 0 (YuanGongND/psla@
    76aedd1 run.py), with no barrier and no word (rank 1 read a missing or half-written
    file)."""
    return [
        (text, read)
        for folder, wanted in folders_elsewhere(call, t, writers)
        for text, calls in reads.items()
        if form_within(text, folder) and not (wanted and suffix(text) not in ("", wanted))
        for read in calls
    ]


def called_names(call: cst.Call, t: RankZeroOnly) -> set[str]:
    """The names a call may call a function of another module by: as written (`f` of
    `f(...)`, `self.f(...)` or `x.f(...)`), and as defined there (`main` of
    `evaluate(...)` after `from evaluate import main as evaluate`)."""
    func = call.func
    name = func.attr.value if isinstance(func, cst.Attribute) else callee(call)
    names = {name} if name else set()
    if isinstance(func, cst.Name):
        names |= {q.rpartition(".")[2] for q in t.qualified_names(func) if "." in q}
    return names


def torch_receiver(t: RankZeroOnly, module: cst.Module, call: cst.Call, own: bool = False) -> bool:
    """`call` is a method of an object a binding of which torch builds (`model.train()`
    after `model = model_pattern(config)` and `model = nn.DataParallel(model)`: thunlp/
    DocRED@64622e6): torch's own method, not one of the program's of the same name
    (called_names matches by name); the name holds a torch module on that path. With
    `own`, also torch's function (`torch.save`) and the class's own method (`self.save()`
    where the class around defines `save`), read here: neither is another module's
    function of that name (round 38, lonePatient/cw2vec-pytorch@c38cc16: a `save(model,
    path)` of utils that loads made both loads, a false DP031)."""
    func = call.func
    if not isinstance(func, cst.Attribute) or not isinstance(func.value, cst.Name):
        return False
    if own and any(q.startswith("torch.") for q in t.qualified_names(func)):
        return True
    flow = view(module)
    around = flow.function_around(call)
    if own and around is not None and around.owner is not None:
        if around.self_name == func.value.value and flow.method(around.owner, func.attr.value):
            return True
    bindings = [d for d in view(module).definitions(func.value) if d.kind != "store"]
    return any(
        d.kind == "assign"
        and isinstance(d.value, cst.Call)
        and (
            callee(d.value) in DDP_WRAPS  # the migrated wrap (`ddp_wrap_trainable(...)`)
            or any(q.startswith("torch.") for q in t.qualified_names(d.value.func))
        )
        for d in bindings
    )


def _reads_path(call: cst.Call) -> bool:
    """`path.open()` / `path.open("rb")`: pathlib's open for reading (a literal mode, or
    none)."""
    positional = [a for a in call.args if a.keyword is None]
    modes = [a.value for a in call.args if a.keyword is not None and a.keyword.value == "mode"]
    value = positional[0].value if positional else (modes[0] if modes else None)
    if value is None:
        return not call.args
    if not isinstance(value, cst.SimpleString):
        return False
    mode = value.evaluated_value
    return isinstance(mode, str) and mode in {"r", "rb", "rt", "br", "tr"}


def _path_object(names: set[str]) -> bool:
    """`x.open(...)` on a value (a local, an attribute, a call's result: a pathlib path
    most often), not a module's `open` (`gzip.open`, `io.open`)."""
    return all("<locals>" in name or name.startswith("pathlib.") for name in names)


#: Log handlers that open the file they are given, on every rank that builds one.
_LOG_FILES = frozenset(
    {
        "logging.FileHandler",
        "logging.handlers.RotatingFileHandler",
        "logging.handlers.TimedRotatingFileHandler",
        "logging.handlers.WatchedFileHandler",
    }
)


def log_file_path(call: cst.Call, names: set[str]) -> cst.BaseExpression | None:
    """The path of a log file a handler opens (`logging.FileHandler(path)`,
    `logging.basicConfig(filename=path)`, loguru's `logger.add(path)`): every rank that
    runs it opens the file, so a name each rank reads on its own (`stamp() + ".log"`, the
    clock to the microsecond) made one log file per rank (L1, fresh round stop 30:
    daa233/generative-inpainting-pytorch's `get_logger()`); rank 0's name gives the
    original's one file."""
    if names & _LOG_FILES:
        for arg in call.args:
            if arg.keyword is None or arg.keyword.value == "filename":
                return arg.value
    if "logging.basicConfig" in names:
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == "filename":
                return arg.value
    if "loguru.logger.add" in names:  # a file sink: `logger.add(f"train-{stamp}.log")`
        for arg in call.args:  # (round 33, yangjianxin1/CPM@2e11cc9: a second file)
            if arg.keyword is None or arg.keyword.value == "sink":
                return arg.value
    return None
