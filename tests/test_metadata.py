"""The cheap metadata of dp2ddp/transforms/{metadata,qualified,import_edits}.py agrees with
libcst's own providers and visitors, node for node, on the fixtures, the examples and a
file of scoping corner cases. (They exist only to be faster; any difference is a bug.)"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import libcst as cst
import libcst.matchers as m
import pytest
from conftest import FIXTURES, ROOT
from libcst._metadata_dependent import LazyValue
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor
from libcst.codemod.visitors._add_imports import _GatherTopImportsBeforeStatements
from libcst.metadata import (
    MetadataWrapper,
    ParentNodeProvider,
    PositionProvider,
    QualifiedNameProvider,
)

from dp2ddp.flow.children import parent_map
from dp2ddp.migrate.reindent import reindented
from dp2ddp.transforms._support.import_edits import (
    TopLevelAddImports,
    _gather_leading_imports,
    remove_imports,
)
from dp2ddp.transforms._support.libcst_private import positions, printed
from dp2ddp.transforms._support.qualified import QualifiedNames

CORNERS = '''"""Scoping corner cases."""
x = torch.zeros(1)
import torch
import torch.nn as nn, torch.optim
from torch.nn import DataParallel as DP, Linear
from . import sibling
from .mod import *
import os.path
print(os.path.join("a"), os.environ, sibling.f(), DP, Linear)
print = print
print("shadowed")
try:
    from tqdm.auto import tqdm
except ImportError:
    from tqdm import tqdm
tqdm(range(3)).close()
model = None
def train(model, loader, optimizer=None, *args, scale: nn.Module = None, **kw) -> torch.Tensor:
    import numpy as np
    global G
    G = np.zeros(1)
    for data, target in loader:
        data, target = data.to(0), target.to(0)
        loss = model(data).sum()
        loss.backward(); optimizer.step()
    with open("f") as fh:
        fh.write(str(loss))
    try:
        pass
    except Exception as err:
        err.with_traceback(None)
    total = 0
    total += 1
    counter = [total for total in range(3)]
    g = (lambda a, b=total: a + b + data)
    def inner():
        return loss.item(), total, model.eval(), undefined.x()
    (w := loss)
    w.item()
    return inner
class Net(nn.Module):
    scale = 2
    layer = scale * 2
    def __init__(self, size=scale, act=lambda z: z.relu()):
        super().__init__()
        self.fc = nn.Linear(size, size)
        model.foo()
    @staticmethod
    def helper(model):
        return [model(v) for v in range(3) if v], {k: model for k in model}
    def forward(self, inp):
        out = self.fc(inp)
        scale.x()
        return out + layer
def evaluate():
    result = later()
    def later():
        return result
    result.x()
    z = z + 1
    q.append(1)
    q = []
    def g():
        nonlocal q
        q = None
main = lambda: train(model, [], None)
for i in range(3):
    j = i
    j.bit_length()
match x:
    case nn.Module(a=1) as mm:
        pass
    case {"k": kk, **rest}:
        pass
from typing import List, NewType
U = NewType("U", int)
def annotated(a: List["Linear"]) -> "DP":
    pass
late.x = 1
import late
late.y()
import a.b.c
a.b.c.d(), a.b.x(), a.zz
G.shape, best.item()
def step(acc):
    global best, G, never
    never.x()
    if acc > best:
        best = acc
    best.item(), G.sum(), [best for _ in G]
    def inner():
        return best.real, G
    class Kept:
        global kept
        kept = 1
best = 0
def report():
    return best.item(), G, never
'''


def _sources() -> list[tuple[str, str]]:
    paths = sorted(FIXTURES.glob("*/*.py"))
    paths += sorted((ROOT / "examples").glob("*/*.py"))
    return [("corners.py", CORNERS)] + [(str(p.relative_to(ROOT)), _as_read(p)) for p in paths]


def _as_read(path: Path) -> str:
    """The text migrate hands libcst: indentation libcst refuses re-indented (reindent.py)."""
    text = path.read_text()
    fixed = reindented(text)
    return text if fixed is None else fixed.text


SOURCES = _sources()
#: The scripts users hand in (the migrated ones add nothing new for the import visitors).
INPUTS = [(name, text) for name, text in SOURCES if not name.endswith(("expected.py", "_ddp.py"))]


#: The defs and classes met so far in this session (statement kind, module layout, text).
_MET: set[tuple[type, tuple[str, str, bool, str], str]] = set()


def _with_met_defs_stubbed(module: cst.Module) -> cst.Module:
    """`module` with each top-level def or class whose text was met in a module prepared
    before (this session, same layout: indent, newline, encoding) made a stub of the same
    name, `def f(): ...` or `class C: ...`; everything else as parsed (stop 62).

    The inline helpers of every expected.py (727 goldens, 85% of the sources' bytes) are the
    same defs again and again: without this both checks below compared the same trees
    under the same names about 700 times. What they check is kept: parents and positions
    are local to a node, and the met def was compared whole where it was first met; a
    qualified name reads the module's bindings, which a stub keeps (the name stays a def or
    a class of the module: libcst and QualifiedNames answer a reference to it alike
    whatever its body), and every top-level statement that is not a def or a class stays
    (imports, assignments, if/try blocks). A def or class that says `global` (it may bind a
    module name) is never a stub. A module met again whole still checks its other
    statements, its header, footer and Module node."""
    layout = (
        module.default_indent,
        module.default_newline,
        module.has_trailing_newline,
        module.encoding,
    )
    body: list[cst.BaseStatement] = []
    for statement in module.body:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            text = module.code_for_node(statement)
            key = (type(statement), layout, text)
            if key in _MET and "global" not in text:
                word = "def" if isinstance(statement, cst.FunctionDef) else "class"
                paren = "()" if word == "def" else ""
                stub = f"{word} {statement.name.value}{paren}: ...\n"
                body.append(cst.parse_statement(stub))
                continue
            _MET.add(key)
        body.append(statement)
    return module.with_changes(body=body)


@pytest.fixture(scope="module", params=SOURCES, ids=[name for name, _ in SOURCES])
def module(request: pytest.FixtureRequest) -> cst.Module:
    return _with_met_defs_stubbed(cst.parse_module(request.param[1]))


@pytest.fixture(scope="module", params=INPUTS, ids=[name for name, _ in INPUTS])
def script(request: pytest.FixtureRequest) -> cst.Module:
    return cst.parse_module(request.param[1])


def test_parents_and_positions(module: cst.Module) -> None:
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    parents = parent_map(module)
    assert parents is not None
    expected = wrapper.resolve(ParentNodeProvider)
    assert len(parents) == len(expected)
    assert all(expected[node] is parent for node, parent in parents.items())
    mine = positions(module)
    expected_positions = wrapper.resolve(PositionProvider)
    assert len(mine) == len(expected_positions)
    assert all(mine[node] == where for node, where in expected_positions.items())
    # printed: the same generation gives the module's code, and keeps the positions
    assert printed(module) == module.code
    assert positions(module) is mine


def test_parent_map_sees_shared_nodes() -> None:
    name = cst.Name("x")
    shared = cst.Module(body=[cst.SimpleStatementLine([cst.Expr(name)])] * 2)
    assert parent_map(shared) is None


def test_qualified_names(module: cst.Module) -> None:
    parents = parent_map(module)
    assert parents is not None
    cheap = QualifiedNames(module, parents)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(QualifiedNameProvider)
    answered = 0
    for node in parents:
        names = cheap.names(node)
        if names is not None:
            answered += 1
            value = expected[node]
            qualified = value() if isinstance(value, LazyValue) else value
            assert names == {q.name for q in qualified}, cst.Module([]).code_for_node(node)
    assert answered >= len(parents) // 2


def test_qualified_names_answer_the_usual_call_targets() -> None:
    source = (ROOT / "examples" / "cnn_trainer" / "train.py").read_text()
    module = cst.parse_module(source)
    parents = parent_map(module)
    assert parents is not None
    cheap = QualifiedNames(module, parents)
    calls = [c for c in m.findall(module, m.Call()) if isinstance(c, cst.Call)]
    unanswered = [c for c in calls if cheap.names(c.func) is None]
    assert len(unanswered) <= len(calls) // 20


_ADDS = [
    ("os", None, None),
    ("torch.distributed", None, "dist"),
    ("torch.nn.parallel", "DistributedDataParallel", None),
    ("__future__", "annotations", None),
]


def test_added_imports(script: cst.Module) -> None:
    module = script
    for count in (1, len(_ADDS)):
        contexts = CodemodContext(), CodemodContext()
        for context in contexts:
            for name, obj, alias in _ADDS[:count]:
                AddImportsVisitor.add_needed_import(context, name, obj, alias)
        expected = AddImportsVisitor(contexts[0]).transform_module(module).code
        assert TopLevelAddImports(contexts[1]).transform_module(module).code == expected


_LEADING = [
    "__strict__ = True\nimport os\nfrom a import b as c\nx = 1\nimport late\n",
    '"doc"\nimport os\n',
    '"doc" "more"\nimport os\n',
    "__strict__, y = 1, 2\nimport os\n",
    "import os; import sys\nimport re\n",
    "from . import a\nfrom .b import *\nimport x.y as z\n",
    "",
]


@pytest.mark.parametrize("source", [text for _, text in INPUTS] + _LEADING)
def test_gathered_leading_imports(source: str) -> None:
    """import_edits' type-tested gathering of the leading imports leaves the gatherer as
    libcst's own `leave_Module` (its matchers) does."""
    module = cst.parse_module(source)
    ours = _GatherTopImportsBeforeStatements(CodemodContext())
    _gather_leading_imports(ours, module.body)
    theirs = _GatherTopImportsBeforeStatements(CodemodContext())
    theirs.leave_Module(module)
    for field in ("all_imports", "module_imports", "object_mapping", "module_aliases"):
        assert getattr(ours, field) == getattr(theirs, field), field
    assert ours.alias_mapping == theirs.alias_mapping


class _RemovesGatheredOnce(RemoveImportsVisitor):
    """libcst's RemoveImportsVisitor, whose visit_Module gathers the module's unused imports
    with GatherUnusedImportsVisitor (a walk of the whole module, two thirds of the visitor's
    time): that answer depends on the module and its metadata only, never on what is
    scheduled for removal, so it is gathered by libcst's own code for a module's first
    statement and kept in `gathered` for the others (libcst 1.5.1 to 1.9.0 keep it in
    `_unused_imports`, read by membership only)."""

    def __init__(
        self, context: CodemodContext, gathered: dict[str, dict[cst.ImportAlias, cst.CSTNode]]
    ) -> None:
        super().__init__(context)
        self._gathered = gathered

    def visit_Module(self, node: cst.Module) -> None:
        if "unused" in self._gathered:
            self._unused_imports = self._gathered["unused"]  # type: ignore[assignment]
            return
        super().visit_Module(node)
        self._gathered["unused"] = dict(self._unused_imports)


def _libcst_removes(
    wrapper: MetadataWrapper,
    context: CodemodContext,
    gathered: dict[str, dict[cst.ImportAlias, cst.CSTNode]],
) -> cst.Module:
    """`RemoveImportsVisitor(context).transform_module(module)`, libcst's own steps, on a
    wrapper made once per module: transform_module copies the module and runs the scope
    analysis again for every import statement, while the wrapper keeps what it resolved
    (nothing the visitor reads differs between them); the unused imports gathered once."""
    visitor = _RemovesGatheredOnce(context, gathered)
    with visitor.resolve(wrapper):
        visitor.context = replace(visitor.context, wrapper=wrapper)
        return wrapper.module.visit(visitor)


def test_removed_imports(script: cst.Module) -> None:
    module = script
    wrapper = MetadataWrapper(module)
    gathered: dict[str, dict[cst.ImportAlias, cst.CSTNode]] = {}
    for statement in m.findall(module, m.Import() | m.ImportFrom()):
        if isinstance(statement, cst.ImportFrom) and statement.relative:
            continue  # libcst cannot resolve it (ValueError from 1.8 on, Exception before)
        contexts = CodemodContext(), CodemodContext()
        for context in contexts:
            RemoveImportsVisitor.remove_unused_import_by_node(context, statement)
        cheap = remove_imports(contexts[1], module)
        if cheap is not None:
            assert cheap.code == _libcst_removes(wrapper, contexts[0], gathered).code


UNUSED = '''"""Mentions DataParallel and L in a docstring only."""
from torch.nn import (
    DataParallel,  # the wrapper
    Linear as L,
)
import os, sys, json
from torch.nn import DataParallel as DP, Conv2d
print(sys.argv, Conv2d)


def f(x: "int"):
    from torch.nn import DataParallel
    import json
    return x
'''


@pytest.mark.parametrize(
    "scheduled",
    [
        [("torch.nn", "DataParallel", None)],
        [("torch.nn", "DataParallel", None), ("torch.nn", "Linear", "L")],
        [("torch.nn", "DataParallel", "DP"), ("torch.nn", "Conv2d", None)],
        [("os", None, None), ("json", None, None)],
        [("torch.nn", "Conv2d", None)],
        [("sys", None, None)],
    ],
)
def test_removed_imports_without_scope_analysis(
    scheduled: list[tuple[str, str | None, str | None]],
) -> None:
    module = cst.parse_module(UNUSED)
    contexts = CodemodContext(), CodemodContext()
    for context in contexts:
        for name, obj, alias in scheduled:
            RemoveImportsVisitor.remove_unused_import(context, name, obj, alias)
    expected = RemoveImportsVisitor(contexts[0]).transform_module(module).code
    cheap = remove_imports(contexts[1], module)
    assert cheap is not None  # each import is plainly unused, or plainly used
    assert cheap.code == expected
