"""grad_mode: the one reading of "gradients off" (stop 51 s2's fold of six readers)."""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms._support.grad_mode import grad_off, under_grad_off
from dp2ddp.transforms._support.nodes import NO_GRAD


def _item(text: str) -> cst.BaseExpression:
    return cst.parse_expression(text)


def test_spelled_contexts_by_name() -> None:
    for text in ("torch.no_grad()", "no_grad()", "torch.inference_mode()",
                 "torch.set_grad_enabled(False)", "torch.autograd.no_grad()"):  # fmt: skip
        assert grad_off(_item(text)), text
    for text in ("torch.inference_mode(False)", "torch.set_grad_enabled(True)",
                 "torch.set_grad_enabled(is_train)", "torch.enable_grad()", "open(p)"):  # fmt: skip
        assert not grad_off(_item(text)), text


def test_an_alias_by_the_pass_s_qualified_names() -> None:
    alias = _item("frozen()")
    resolved = {"frozen": "torch.no_grad"}

    def matches(node: cst.CSTNode, names: frozenset[str]) -> bool:
        return isinstance(node, cst.Name) and resolved.get(node.value) in names

    assert not grad_off(alias)
    assert grad_off(alias, matches)
    assert "torch.no_grad" in NO_GRAD


def test_under_its_own_function_only() -> None:
    module = cst.parse_module(
        "with torch.no_grad():\n"
        "    a = 1\n"
        "    def later():\n"
        "        b = 2\n"
        "@torch.no_grad()\n"
        "def scored():\n"
        "    c = 3\n"
    )
    parents: dict[cst.CSTNode, cst.CSTNode] = {}
    todo: list[cst.CSTNode] = [module]
    found: dict[str, cst.CSTNode] = {}
    while todo:
        node = todo.pop()
        for child in node.children:
            parents[child] = node
            todo.append(child)
            if isinstance(child, cst.Name) and child.value in ("a", "b", "c"):
                found[child.value] = child
    assert under_grad_off(found["a"], parents.get)
    assert not under_grad_off(found["b"], parents.get)  # runs when called, not there
    assert under_grad_off(found["c"], parents.get)
