"""flow/bindings.py answers what libcst's ScopeProvider answered for the data and batch passes
(an access's referents, an assignment's references, a def's call sites, the module's
names), on the data and batch fixtures' inputs, the program fixtures and a snippet of the
shapes where libcst's answer is not the plain one (loop targets, comprehensions, nonlocal,
global, bare annotations, dotted imports, class bodies, uses before a binding)."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
from conftest import FIXTURES, ROOT
from libcst.metadata import Assignment, MetadataWrapper, ScopeProvider

from dp2ddp.flow.bindings import bindings
from dp2ddp.transforms._support.nodes import walk

SNIPPET = """
import os.path
import torch.nn as nn
from torch.utils.data import DataLoader

x: int
loader = DataLoader(range(4))
for i in range(3):
    loader = DataLoader(range(i))
squares = [i * i for i in range(4) if i]
pairs = {k: v for k, v in zip("ab", [loader, i]) for _ in k}
path = os.path.join("a", "b")


def use_before():
    print(total)
    total = 1
    return total


def outer(n):
    count = 0
    def inner():
        nonlocal count
        count += n
        return count
    inner()
    return count


def set_global():
    global loader
    loader = None


class Holder:
    size = 3
    doubled = [size for _ in range(2)]

    def method(self, size=size):
        return size + x


@staticmethod
def decorated(f=lambda a, b=loader: a + b):
    with open(path) as handle, open(path) as other:
        data = handle.read() + other.read()
    while (line := data):
        data = line[1:]
    return data


outer(2)
Holder().method()
decorated()
"""


def _check(source: str, label: str) -> int:
    module = cst.parse_module(source)
    scopes = MetadataWrapper(module, unsafe_skip_copy=True).resolve(ScopeProvider)
    answer = bindings(module)
    checked = 0
    for node in walk(module):
        if isinstance(node, cst.Name):
            scope = scopes.get(node)
            old = (
                []
                if scope is None
                else [
                    r
                    for a in scope.accesses[node]
                    if a.node is node
                    for r in a.referents
                    if isinstance(r, Assignment)
                ]
            )
            new = answer.referents(node)
            assert {id(r.node) for r in old} == {id(r.node) for r in new}, (label, node.value)
            for assignment in old:
                mine = next(r for r in new if r.node is assignment.node)
                assert {id(a.node) for a in assignment.references} == {
                    id(u.node) for u in mine.references
                }, (label, node.value, "references")
            checked += 1
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            scope = scopes.get(node)
            assert scope is not None
            expected = sorted(
                id(access.node)
                for a in scope.assignments[node.name.value]
                if isinstance(a, Assignment) and a.node is node
                for access in a.references
            )
            got = sorted(id(u.node) for r in answer.defined_by(node) for u in r.references)
            assert got == expected, (label, node.name.value, "call sites")
    globals_scope = scopes.get(module.body[0]) if module.body else None
    if globals_scope is not None:
        names = {a.name for a in globals_scope.globals.assignments}
        assert answer.module_names() == names, label
    return checked


def test_snippet_resolves_as_libcst() -> None:
    assert _check(SNIPPET, "snippet") > 80


def test_fixtures_resolve_as_libcst() -> None:
    paths = sorted(FIXTURES.glob("data_*/input.py")) + sorted(FIXTURES.glob("batches_*/input.py"))
    paths += sorted(Path(ROOT / "tests" / "program_fixtures").rglob("*.py"))[:60]
    assert len(paths) > 60
    checked = sum(_check(p.read_text(encoding="utf-8"), str(p)) for p in paths)
    assert checked > 5000
