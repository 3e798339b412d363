"""Static hints from the scripts' text, to point a likely cause at a line.

The measured evidence decides whether a cause applies; these findings only say where to
look (the dropout layer, the `torch.randn` inside the loop, the `reduction="sum"`).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from dp2ddp.transforms._support.names import INPLACE_RANDOM_FILLS

DROPOUT = "dropout"
BATCHNORM = "batchnorm"
RANDOM_IN_LOOP = "random_in_loop"
SUM_LOSS = "sum_loss"
WORLD_SIZE_LR = "world_size_lr"
DISTRIBUTED_SAMPLER = "distributed_sampler"
SET_EPOCH = "set_epoch"

_DROPOUT_NAMES = frozenset(
    {"Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout",
     "dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout"}
)  # fmt: skip
_BATCHNORM_NAMES = frozenset(
    {"BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "LazyBatchNorm1d",
     "LazyBatchNorm2d", "LazyBatchNorm3d", "batch_norm"}
)  # fmt: skip
_TORCH_RANDOM = frozenset(
    {"randn", "rand", "randint", "randn_like", "rand_like", "randint_like", "normal",
     "bernoulli", "multinomial", "randperm", "poisson"}
)  # fmt: skip
_WORLD_NAMES = frozenset({"WORLD_SIZE", "get_world_size", "world_size"})


@dataclass(frozen=True)
class Finding:
    kind: str
    line: int
    text: str


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else node.attr
    if isinstance(node, ast.Call):
        return _dotted(node.func)
    return ""


#: Calls of the random modules that draw nothing.
_NOT_DRAWS = frozenset(
    {"seed", "get_state", "set_state", "getstate", "setstate", "default_rng", "RandomState",
     "Generator", "SeedSequence"}
)  # fmt: skip


def _is_random_call(name: str) -> bool:
    parts = name.split(".")
    last = parts[-1]
    if last in _NOT_DRAWS:
        return False
    if last in INPLACE_RANDOM_FILLS:
        return True
    if parts[0] == "torch" and last in _TORCH_RANDOM:
        return True
    if "random" in parts[:-1] and parts[0] in {"np", "numpy", "random"}:
        return True
    return False


def _calls_outside_loops(node: ast.AST) -> list[ast.Call]:
    """Calls under `node`, not inside its loops (a loop's draws are found where they are)."""
    calls = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.For | ast.While | ast.AsyncFor):
            continue
        if isinstance(child, ast.Call):
            calls.append(child)
        calls += _calls_outside_loops(child)
    return calls


def _drawing_functions(tree: ast.Module) -> dict[str, str]:
    """Module-level functions that draw random numbers outside their own loops (directly or
    through one another): name -> the first draw's call (`mixup_data` -> `np.random.beta`)."""
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    found: dict[str, str] = {}

    def first_draw(name: str, seen: set[str]) -> str | None:
        if name in found or name in seen:
            return found.get(name)
        seen.add(name)
        calls = _calls_outside_loops(functions[name])
        for call in sorted(calls, key=lambda c: (c.lineno, c.col_offset)):
            callee = _dotted(call.func)
            if _is_random_call(callee):
                found[name] = callee
                return callee
            inner = first_draw(callee, seen) if callee in functions else None
            if inner is not None:
                found[name] = inner
                return inner
        return None

    for name in functions:
        first_draw(name, set())
    return found


class _Scanner(ast.NodeVisitor):
    def __init__(self, drawing: dict[str, str] | None = None) -> None:
        self.findings: list[Finding] = []
        self.loop_depth = 0
        self.drawing = drawing or {}

    def _add(self, kind: str, node: ast.AST, text: str) -> None:
        self.findings.append(Finding(kind, getattr(node, "lineno", 0), text))

    def visit_For(self, node: ast.For) -> None:
        self._loop(node)

    def visit_While(self, node: ast.While) -> None:
        self._loop(node)

    def _loop(self, node: ast.For | ast.While) -> None:
        self.loop_depth += 1
        self.generic_visit(node)
        self.loop_depth -= 1

    def visit_Name(self, node: ast.Name) -> None:
        if node.id == "DistributedSampler":
            self._add(DISTRIBUTED_SAMPLER, node, node.id)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr == "DistributedSampler":
            self._add(DISTRIBUTED_SAMPLER, node, _dotted(node))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = _dotted(node.func)
        last = name.rsplit(".", 1)[-1]
        if last in _DROPOUT_NAMES:
            self._add(DROPOUT, node, name)
        elif last in _BATCHNORM_NAMES:
            self._add(BATCHNORM, node, name)
        elif last == "set_epoch":
            self._add(SET_EPOCH, node, name)
        if self.loop_depth and _is_random_call(name):
            self._add(RANDOM_IN_LOOP, node, name)
        elif self.loop_depth and name in self.drawing:
            self._add(RANDOM_IN_LOOP, node, f"{name}() draws {self.drawing[name]}")
        for kw in node.keywords:
            self._keyword(node, name, kw)
        self.generic_visit(node)

    def _keyword(self, call: ast.Call, name: str, kw: ast.keyword) -> None:
        value = kw.value
        if kw.arg == "reduction" and isinstance(value, ast.Constant) and value.value == "sum":
            self._add(SUM_LOSS, call, f'{name}(reduction="sum")')
        elif kw.arg == "size_average" and isinstance(value, ast.Constant) and value.value is False:
            self._add(SUM_LOSS, call, f"{name}(size_average=False)")
        elif kw.arg == "dropout" and not (isinstance(value, ast.Constant) and not value.value):
            self._add(DROPOUT, call, f"{name}(dropout=...)")
        elif kw.arg == "lr" and any(
            isinstance(n, ast.Name | ast.Attribute)
            and _dotted(n).rsplit(".", 1)[-1] in _WORLD_NAMES
            for n in ast.walk(value)
        ):
            self._add(WORLD_SIZE_LR, call, f"lr={ast.unparse(value)}")


def scan(source: str) -> list[Finding]:
    """Findings in `source`; nothing for a file that does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return []
    scanner = _Scanner(_drawing_functions(tree))
    scanner.visit(tree)
    return scanner.findings


def wrap_dims(source: str) -> frozenset[int]:
    """The `dim` of each `DataParallel(...)` call in `source` as written (0 where it is not
    given; -1 where it is no int literal). A wrap the run does not reach (under a GPU count
    false on CPU) leaves the original's recorder no DataParallel to read its dim from:
    vansky/neural-complexity@3c057f8 wraps `nn.DataParallel(model, dim=1)` only with
    several GPUs, and verify counted its time-major batch's rows as samples, "each rank fed
    the original's whole batch" (stop 58, v2-D). Empty for a file that does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return frozenset()
    dims = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or _dotted(node.func).split(".")[-1] != "DataParallel":
            continue
        given = [k.value for k in node.keywords if k.arg == "dim"]
        value = given[0] if given else node.args[3] if len(node.args) > 3 else None
        if value is None:
            dims.add(0)
        elif isinstance(value, ast.Constant) and type(value.value) is int:
            dims.add(value.value)
        else:
            dims.add(-1)
    return frozenset(dims)


def draws_in(path: Path, function: str) -> list[str]:
    """`line (call)` of each draw from a global generator in the functions named `function`
    of the file at `path` (a dataset's per-sample draws: draw_cause.shared_reads); empty
    where the file cannot be read or parsed."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8-sig"))
    except (OSError, SyntaxError, ValueError, RecursionError):
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == function:
            for call in ast.walk(node):
                if isinstance(call, ast.Call) and _is_random_call(name := _dotted(call.func)):
                    found.append((call.lineno, name))
    return [f"{line} ({name})" for line, name in sorted(set(found))]


def lines(findings: list[Finding], kind: str, limit: int = 3) -> str:
    """'line 12 (nn.Dropout), line 30 (F.dropout)' for the findings of one kind."""
    hits = [f for f in findings if f.kind == kind]
    text = ", ".join(f"line {f.line} ({f.text})" for f in hits[:limit])
    return text + (f" and {len(hits) - limit} more" if len(hits) > limit else "")


def pair_losses(entry: Path) -> tuple[str, ...]:
    """`path:line name()` of each loss function of the program of `entry` (its modules, as
    `dp2ddp migrate` discovers them) that compares samples across the batch (DP040): under
    DDP it sees a rank's part of each batch, under DataParallel the whole."""
    from dp2ddp.errors import InputError
    from dp2ddp.program.discovery import discover_program
    from dp2ddp.transforms.hazards.pairs import pair_loss_sites

    try:
        sources = [(m.path, m.source.text) for m in discover_program(str(entry)).modules]
    except (InputError, OSError, UnicodeDecodeError):
        return ()
    return tuple(
        f"{path}:{line} {name}() ({expression.splitlines()[0][:50]})"
        for path, text in sources
        for line, name, expression in pair_loss_sites(text)
        if _used(name.partition(".")[0], [t for _, t in sources])
    )


def forward_draws(entry: Path) -> tuple[str, ...]:
    """`path:line call` of each draw of the global RNGs (no `generator=`) inside a `forward`
    method of the program of `entry` (its modules, as `dp2ddp migrate` discovers them): where
    a measured draw in the model's forward comes from (draw_cause.py)."""
    from dp2ddp.errors import InputError
    from dp2ddp.program.discovery import discover_program

    try:
        sources = [(m.path, m.source.text) for m in discover_program(str(entry)).modules]
    except (InputError, OSError, UnicodeDecodeError):
        return ()
    out = []
    for path, text in sources:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError):
            continue
        for call in _forward_calls(tree):
            if _is_random_call(_dotted(call.func)) and not any(
                kw.arg == "generator" for kw in call.keywords
            ):
                text_of = ast.unparse(call).splitlines()[0][:60]
                out.append(f"{path}:{call.lineno} {text_of}")
    return tuple(dict.fromkeys(out))


def _forward_calls(tree: ast.Module) -> list[ast.Call]:
    """The calls of every `forward` method of the module, and of the functions it calls by
    name: a method of its class (`self.get_shuffle_ids(n)`) or a function of the module,
    and theirs in turn. UMBCvision/ISD@4bdd603 draws its `torch.randperm` in a method
    forward calls: verify said "no draw in a forward() of the program's modules ran: a
    library layer's" (stop 54 v3-C)."""
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    pending: list[tuple[ast.FunctionDef, dict[str, ast.FunctionDef]]] = []
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
        if "forward" in methods:
            pending.append((methods["forward"], methods))
    seen: set[int] = set()
    calls = []
    while pending:
        function, methods = pending.pop()
        if id(function) in seen:
            continue
        seen.add(id(function))
        for call in (n for n in ast.walk(function) if isinstance(n, ast.Call)):
            calls.append(call)
            name = _dotted(call.func)
            if name.startswith("self.") and name[5:] in methods:
                pending.append((methods[name[5:]], methods))
            elif name in functions:
                pending.append((functions[name], methods))
    return sorted(calls, key=lambda c: (c.lineno, c.col_offset))


def _used(name: str, texts: list[str]) -> bool:
    """`name` (a loss class or function) is used by the program: named in some module other
    than by its own `def`/`class` line or an import (a loss module's other classes the
    program never instantiates are no cause: fresh round V6, SCAN's SimCLRLoss)."""
    word = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")
    definition = re.compile(rf"^\s*(?:async\s+)?(?:def|class)\s+{re.escape(name)}\b")
    for text in texts:
        if name not in text:
            continue
        for line in text.splitlines():
            stripped = line.split("#", 1)[0]
            if not word.search(stripped) or definition.match(stripped):
                continue
            if re.match(r"^\s*(?:from\s+\S+\s+)?import\s", stripped):
                continue
            return True
    return False


def mean_losses(entry: Path, warnings: tuple[str, ...] = ()) -> tuple[str, ...]:
    """`path:line call` of each loss of the program of `entry` that averages over a count
    the data decides (`ignore_index=`, class `weight=`: DP043): under DDP each rank divides
    by its own part's count, under DataParallel the loss divided by the whole batch's.

    With the warnings of verify's own migration (`path:line:col CODE message`), only the
    losses DP043 was given for: the ones that may train (not a criterion only evaluated)."""
    from dp2ddp.errors import InputError
    from dp2ddp.program.discovery import discover_program
    from dp2ddp.transforms.hazards.mean_losses import mean_loss_sites

    try:
        sources = [(m.path, m.source.text) for m in discover_program(str(entry)).modules]
    except (InputError, OSError, UnicodeDecodeError):
        return ()
    warned = {
        (Path(match[1]).name, int(match[2]))
        for match in (re.match(r"^(.*):(\d+):\d+: DP043 ", w) for w in warnings)
        if match
    }
    return tuple(
        f"{path}:{line} {call[:70]}"
        for path, text in sources
        for line, call in mean_loss_sites(text)
        if not warnings or (Path(path).name, line) in warned
    )
