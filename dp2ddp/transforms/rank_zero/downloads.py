"""Datasets that download and unpack their files on first use: built by rank 0 first.

`CIFAR10(root, download=True)`: under DataParallel one process fetched the archive into
`root` and unpacked it. Under torchrun every process does, at once, into the same files:
a torn archive, "File not found or corrupted", a tree read while another process still
unpacks it; every first run on a new machine. A call that passes `download=` (anything but
a literal False) becomes `ddp_rank0_first(CIFAR10, root, download=True)`
(templates/helpers/rank0_first.py.j2): rank 0 builds it first, then each node's first
process, then the rest, who find the files there and fetch nothing. That waits at
barriers, so every rank must reach the call, after the process group exists
(analysis/uniformity.py); where that is not proved, DP065 names the call and why, and the
call is left as written.
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms._support.nodes import (
    enclosing_class,
    enclosing_function,
    method_class,
    walk,
)
from dp2ddp.transforms.rank_zero.edits import call_through, is_false_literal
from dp2ddp.transforms.rank_zero.rule import CallRule

#: The helper a download call goes through (templates/helpers/rank0_first.py.j2).
_HELPER = "ddp_rank0_first"


class Downloads(CallRule):
    def leave_call(
        self, original: cst.Call, updated: cst.Call, names: set[str]
    ) -> cst.BaseExpression | None:
        if not downloads(original) or self.facts.under_guard(original):
            return None
        if self._built_first(original):
            return updated  # runs inside ddp_rank0_first already: rank 0 first, then the rest
        if any(name.rpartition(".")[2] == _HELPER for name in names) or (
            isinstance(original.func, cst.Name) and original.func.value == _HELPER
        ):
            return updated  # migrated before: the helper's own call
        why = self._not_every_rank(original)
        if why is not None:
            self.t.warn(
                original,
                "DP065",
                f"`{self.t.code(original.func)}(..., download=...)` would fetch its files on "
                f"every rank at once; not made rank 0's first: {why}",
            )
            return updated
        self.t.state.helpers.add("rank0_first")
        self.t.record(original, "dataset built by rank 0 first, then the other ranks")
        last = updated.args[-1].comma if updated.args else cst.MaybeSentinel.DEFAULT
        exploded = isinstance(last, cst.Comma) and isinstance(
            last.whitespace_after, cst.ParenthesizedWhitespace
        )  # black's magic trailing comma: one argument a line, kept so
        if exploded or any(isinstance(node, cst.Comment) for node in walk(updated)):
            return call_through(_HELPER, updated)
        # no comment, no magic trailing comma: one line, as black joins it (the tidy step
        # wraps it as black would where it is too long)
        joined = call_through(
            _HELPER, updated.with_changes(whitespace_before_args=cst.SimpleWhitespace(""))
        ).visit(_OneLine())
        assert isinstance(joined, cst.Call)
        *first, final = joined.args
        return joined.with_changes(
            args=[*first, final.with_changes(comma=cst.MaybeSentinel.DEFAULT)]
        )

    def _built_first(self, call: cst.Call) -> bool:
        """`call` runs only while a dataset class of this module is built, and each of its
        constructions passes `download=` (so goes through ddp_rank0_first, or is said
        DP065 itself): rank 0 builds it first, the others after, so the download inside
        is rank 0's first already; a second ddp_rank0_first inside would wait at a barrier
        the other ranks reach only after it. The class is named by no other module
        (ProgramHints.home_classes; a single file is the program), its name is read only
        as such a construction (or `super(C, self)`), and the method holding `call` is
        `__init__` or one only `self.m(...)` calls in it, transitively, called by that name
        nowhere else in the module (happen2me/genda@858cea8's MNISTM.download() building
        `datasets.MNIST(..., download=True)`: DP065 ×2, stop 63 s3). An instance handed to
        another module that calls the method there is not read."""
        cls = enclosing_class(call, self.t)
        method = enclosing_function(call, self.t)
        if cls is None or method is None or method_class(method, self.t) is not cls:
            return False
        facts = self.t.state.facts
        if facts.in_program and cls.name.value not in facts.hints.home_classes:
            return False
        module = self.facts.module
        methods = {f.name.value: f for f in cls.body.body if isinstance(f, cst.FunctionDef)}
        reached, todo = {"__init__"}, ["__init__"]
        while todo:
            current = methods.get(todo.pop())
            for node in walk(current) if current is not None else ():
                if (
                    isinstance(node, cst.Call)
                    and isinstance(node.func, cst.Attribute)
                    and isinstance(node.func.value, cst.Name)
                    and node.func.value.value == "self"
                    and node.func.attr.value not in reached
                ):
                    reached.add(node.func.attr.value)
                    todo.append(node.func.attr.value)
        if method.name.value not in reached:
            return False
        inside = {id(n) for n in walk(cls)}
        for node in walk(module):
            if isinstance(node, cst.Call) and id(node) not in inside:
                func = node.func
                if isinstance(func, cst.Attribute) and func.attr.value == method.name.value:
                    return False  # called by that name outside the class
            if not isinstance(node, cst.Name) or node.value != cls.name.value:
                continue
            parent = self.t.parent(node)
            if parent is cls or (isinstance(parent, cst.Arg) and id(parent) in inside):
                continue  # the class's own name, `super(C, self)`
            if not (isinstance(parent, cst.Call) and parent.func is node and downloads(parent)):
                return False
        return True

    def _not_every_rank(self, call: cst.Call) -> str | None:
        """Why not every rank may reach `call` after the process group exists; None when
        every rank does (ddp_rank0_first's barriers would wait for a rank that never came)."""
        if self.facts.before_setup(call):
            return "it runs before ddp_setup()"
        if self.facts.in_except(call):
            return "it runs in an `except` (an exception raised on one rank)"
        return self.facts.uniform.why_not_reached(call)


class _OneLine(cst.CSTTransformer):
    """Each comma followed by one space (the call holds no comment: no line break to keep)."""

    def leave_Comma(self, original_node: cst.Comma, updated_node: cst.Comma) -> cst.Comma:
        return updated_node.with_changes(
            whitespace_before=cst.SimpleWhitespace(""),
            whitespace_after=cst.SimpleWhitespace(" "),
        )


def downloads(call: cst.Call) -> bool:
    """`call` passes `download=` with anything but a literal False (torchvision's,
    torchaudio's and torchtext's datasets, a project's dataset factory)."""
    return any(
        arg.keyword is not None
        and arg.keyword.value == "download"
        and not is_false_literal(arg.value)
        for arg in call.args
    )
