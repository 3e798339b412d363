"""The wrapper's text where the program makes a string of the model: `str(model)`,
`repr(model)`, `f"{model}"` (stop 54 s2).

nn.Module's repr begins with the class's name: `DataParallel(\n  (module): Net(...))` in the
original, `DistributedDataParallel(\n  (module): ...)` after the migration. Where the program
makes a string of it, the string may name a file, a key or a line a tool reads: where the
model may be the wrap (WrapperClass.seen: every value a wrap, or a guarded one, or a
parameter another module's call may hand one), the string becomes `ddp_wrapper_repr(model)`
(templates/helpers/wrapper_repr.py.j2): the original's text for the wrap, the model's own
otherwise. A bare `print(model)` is a person's read of the run's structure, and is left as
it is (it names the DDP wrap the run has).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst
import libcst.matchers as m

if TYPE_CHECKING:
    from dp2ddp.transforms._support.base import MigrationTransform
    from dp2ddp.transforms.analysis.wrapper_class import WrapperClass

#: The inserted call (templates/helpers/wrapper_repr.py.j2).
WRAPPER_REPR = "ddp_wrapper_repr"
#: The builtins that make a model's text.
TEXTS = frozenset({"str", "repr"})


def _wrapped(t: MigrationTransform, model: cst.BaseExpression) -> cst.Call:
    t.state.helpers.add("wrapper_repr")
    return cst.Call(cst.Name(WRAPPER_REPR), [cst.Arg(model.deep_clone())])


def text_call(
    t: MigrationTransform, names: WrapperClass, original: cst.Call, updated: cst.Call
) -> cst.BaseExpression:
    """`str(model)` / `repr(model)` -> `ddp_wrapper_repr(model)`."""
    if not (
        m.matches(original.func, m.Name("str") | m.Name("repr"))
        and len(original.args) == 1
        and original.args[0].keyword is None
        and not original.args[0].star
    ):
        return updated
    model = original.args[0].value
    if not names.may_name_wrap(model) or names.seen(model) is None:
        return updated
    t.record(original, f"`{t.code(original)}` as the original wrote it (DataParallel's text)")
    return _wrapped(t, model)


def text_field(
    t: MigrationTransform,
    names: WrapperClass,
    original: cst.FormattedStringExpression,
    updated: cst.FormattedStringExpression,
) -> cst.FormattedStringExpression:
    """`f"{model}"` / `f"{model!r}"` -> `f"{ddp_wrapper_repr(model)}"`."""
    if original.format_spec or original.conversion not in (None, "r", "s"):
        return updated
    model = original.expression
    if not names.may_name_wrap(model) or names.seen(model) is None:
        return updated
    t.record(original, f"`{{{t.code(model)}}}` as the original wrote it (DataParallel's text)")
    return updated.with_changes(expression=_wrapped(t, model), conversion=None)
