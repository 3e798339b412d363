"""Output methods of objects of a library the rank-0 rules do not know (DP080).

`bar.write(line)` (`.print`, `.log`, a writer's `.add_*`) of `bar` bound to an object of a
library no rule knows (fastprogress's master_bar.write prints; the old tensorboard package's
`FileWriter(log_dir).add_summary(...)`, round 33, hanzhanggit/StackGAN-v2@6228e34): not
proved to print or write once. Said, not guarded: what the method does is not known. The
object is a name bound in the call's scope (RankZeroFacts.instances), or an attribute of the
method's own object (`self.summary_writer`, StackGAN's trainers: every binding of it in the
class, by the def-use view, is a construction of such a library class).
"""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.transforms._support.nodes import enclosing_class
from dp2ddp.transforms.rank_zero.side_effects import KNOWN_PACKAGES
from dp2ddp.transforms.rank_zero.stream_names import IN_MEMORY_FILES

if TYPE_CHECKING:
    from dp2ddp.transforms.rank_zero.guard_statements import StatementGuards

#: The class of an object whose `add_*` methods write (a summary or event writer, a logger).
_WRITER = re.compile(r"(Writer|Logger|Summary)[^.]*$")


def said_library_output(
    rule: StatementGuards, call: cst.Call, receiver: cst.BaseExpression
) -> None:
    """DP080 at `call` where its receiver is such an object (the module docstring)."""
    if rule.facts.under_guard(call):
        return
    classes = _classes(rule, call, receiver)
    method = call.func.attr.value if isinstance(call.func, cst.Attribute) else ""
    if classes and method.startswith("add_") and not all(_WRITER.search(c) for c in classes):
        return  # `add_*` of a writer (`add_summary`), not `features.add_module(...)`
    if not classes or any(
        "." not in name  # the module's own class
        or name.split(".")[0] in KNOWN_PACKAGES | sys.stdlib_module_names  # open(), io
        or name.rsplit(".", 1)[-1] in IN_MEMORY_FILES  # six.BytesIO: no file, no line
        or rule.own_method(name, method)
        for name in classes
    ):
        return
    if not rule.first_saying(call):
        return
    rule.t.warn(
        call,
        "DP080",
        f"{rule.t.code(call.func)}() of {rule.t.code(receiver)}, an object of {min(classes)}, "
        "runs on every rank; not proved to print or log only once",
    )


def _classes(
    rule: StatementGuards, call: cst.Call, receiver: cst.BaseExpression
) -> frozenset[str] | None:
    """The qualified names of the classes `receiver` may be an instance of; None: unknown."""
    if isinstance(receiver, cst.Name):
        return rule.facts.instances.get((rule.facts.scope_id(call), receiver.value))
    if not (isinstance(receiver, cst.Attribute) and isinstance(receiver.value, cst.Name)):
        return None
    owner = enclosing_class(call, rule.t)
    if owner is None:
        return None
    found: set[str] = set()
    for definition in view(rule.facts.module).attribute_definitions(owner, receiver.attr.value):
        value = definition.value
        if not isinstance(value, cst.Call):
            return None
        names = rule.t.qualified_names(value.func)
        if not names or not all(n.rpartition(".")[2][:1].isupper() for n in names):
            return None  # a class built there, not what a function returns (a program's own)
        found |= names
    return frozenset(found) or None
