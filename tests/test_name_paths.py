"""name_paths.read_paths: what each path after a call reads of the names it binds (DP041's
per-path question of a submodule's outputs, analysis/dropped_outputs.py)."""

from __future__ import annotations

import ast

from dp2ddp.transforms.analysis.name_paths import read_paths


def _stories(source: str, names: tuple[str, ...] = ("a", "b")) -> set[frozenset[str]] | None:
    function = ast.parse(source).body[0]
    assert isinstance(function, ast.FunctionDef)
    call = next(
        n for n in ast.walk(function) if isinstance(n, ast.Assign) and "call" in ast.unparse(n)
    )
    found = read_paths(function, call, names)
    return None if found is None else set(found)


def test_a_name_bound_again_on_one_branch_is_read_on_the_other_only() -> None:
    source = "def f(x):\n a, b = call(x)\n if x:\n  a = b\n return a\n"
    assert _stories(source) == {frozenset({"b"}), frozenset({"a"})}


def test_a_read_in_every_branch_keeps_it_and_a_raise_counts_for_nothing() -> None:
    source = (
        "def f(x):\n a, b = call(x)\n if x:\n  y = a + b\n elif x > 1:\n  raise ValueError\n"
        " else:\n  y = b * a\n return y\n"
    )
    assert _stories(source) == {frozenset({"a", "b"})}


def test_an_early_return_leaves_before_the_read() -> None:
    source = "def f(x):\n a, b = call(x)\n if x:\n  return b\n return a + b\n"
    assert _stories(source) == {frozenset({"b"}), frozenset({"a", "b"})}


def test_a_loop_reads_the_last_pass_on_its_next_pass_only() -> None:
    source = "def f(x, blocks):\n for blk in blocks:\n  a, b = call(a)\n  x = x + b\n return x\n"
    assert _stories(source) == {frozenset({"b"}), frozenset({"a", "b"})}


def test_a_call_outside_the_function_is_not_answered() -> None:
    function = ast.parse("def f(x):\n return x\n").body[0]
    other = ast.parse("a, b = call(1)\n").body[0]
    assert isinstance(function, ast.FunctionDef)
    assert read_paths(function, other, ("a", "b")) is None
