"""Small libcst edits the rank_zero rules share: a keyword appended in the call's own
layout, parentheses where an expression needs them, literal tests."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst
import libcst.matchers as m

from dp2ddp.transforms._support.nodes import nodes_of
from dp2ddp.transforms.analysis.guards import main_call


def is_false_literal(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "False"


def is_true_literal(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def callee(call: cst.Call) -> str:
    """`f` of `f(...)` or `self.f(...)`; "" otherwise."""
    func = call.func
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute) and m.matches(func.value, m.Name("self")):
        return func.attr.value
    return ""


def functions_calling(module: cst.Module, direct: Callable[[cst.Call], bool]) -> frozenset[str]:
    """The names of the module's functions and methods that make a call `direct` accepts
    (torch.save, torch.load), in their own body or through calls of others of them: a
    checkpoint saved or read by `evaluate(path)` is saved or read where `evaluate` is
    called."""
    functions = list(nodes_of(module, cst.FunctionDef))
    found = {f.name.value for f in functions if any(map(direct, nodes_of(f, cst.Call)))}
    while True:
        more = {
            f.name.value
            for f in functions
            if any(callee(c) in found for c in nodes_of(f, cst.Call))
        } - found
        if not more:
            return frozenset(found)
        found |= more


def is_name(node: cst.BaseExpression, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def parenthesize(node: cst.BaseExpression) -> cst.BaseExpression:
    if node.lpar or not isinstance(node, (cst.IfExp, cst.Lambda, cst.NamedExpr)):
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def disabled_off_main(value: cst.BaseExpression) -> cst.IfExp:
    """`<value> if ddp_is_main() else "disabled"`."""
    return cst.IfExp(
        test=main_call(), body=parenthesize(value), orelse=cst.SimpleString('"disabled"')
    )


def append_keyword(call: cst.Call, name: str, value: cst.BaseExpression) -> cst.Call:
    """Add `name=value` last, keeping a multi-line call's trailing comma and layout."""
    new = cst.Arg(
        keyword=cst.Name(name),
        value=value,
        equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
        ),
    )
    args = list(call.args)
    if args and isinstance(args[-1].comma, cst.Comma):
        # A trailing comma: the new argument takes it; the old last one gets a separator
        # laid out like the ones before it.
        if len(args) >= 2 and isinstance(args[-2].comma, cst.Comma):
            separator = args[-2].comma
        elif isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace):
            separator = cst.Comma(whitespace_after=call.whitespace_before_args)
        else:
            separator = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        new = new.with_changes(comma=args[-1].comma)
        args[-1] = args[-1].with_changes(comma=separator)
    return call.with_changes(args=[*args, new])


def items_through(helper: str, call: cst.Call) -> cst.Call:
    """`os.walk(d)` -> `iter(helper(list, os.walk(d)))`: a call whose value is an iterator
    (a generator, which pickle cannot send from rank 0) made by `helper` as its items."""
    items = cst.Call(cst.Name(helper), [cst.Arg(cst.Name("list")), cst.Arg(call)])
    return cst.Call(cst.Name("iter"), [cst.Arg(items)])


def call_through(helper: str, call: cst.Call) -> cst.Call:
    """`f(a, b)` -> `helper(f, a, b)`: the call made by a generated helper that decides on
    which rank, or when, it runs (`ddp_rank0_value`, `ddp_stdin`, `ddp_mkdir`,
    `ddp_rank0_first`). `f` goes first, laid out as the arguments are: on a line of its own
    where they start on one (one argument a line), else followed by one space."""
    if not call.args:
        comma: cst.Comma | cst.MaybeSentinel = cst.MaybeSentinel.DEFAULT
    elif isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace):
        comma = cst.Comma(whitespace_after=call.whitespace_before_args)
    else:
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return call.with_changes(
        func=cst.Name(helper), args=[cst.Arg(value=call.func, comma=comma), *call.args]
    )
