"""`x is None` / `x is not None`: the same on every rank where `x` is proved never None.

A test of whether something was handed in (`if self.opt is not None: self.opt.step()`,
patelrajnath/pytorch-dl@008c0e9 dataset/iwslt_data.py:136, an optimizer handed to a loss
helper's constructor) reads only whether the value is None, not the value: an optimizer each
rank built for itself is another object on every rank, but it is an optimizer on every rank.
Before, the uniformity proof asked whether the optimizer itself was the same (it is not
proved: `torch.optim.SGD(model.parameters())`) and DP075 said "`if self.opt is not None` may
differ between ranks", false, as was DP065's reason for such a test before a download.

`never_none` proves it through every binding that may reach the value (the def-use view),
whichever one a rank takes: a literal other than None, a function or class object, a call
of a class (one of this module, or torch's: `torch.optim.SGD(...)`, whose constructor
returns the instance); a name every reaching binding of which is never None; `self.x`
(or `obj.x`) every store of whose attribute in the module (and in no other module of the
program) is never None and runs where every rank arrives, with no class-level default; a
parameter every call of whose function in the module passes a never-None value (a default
counts only where a call leaves the parameter out), or, for a class's `__init__`, the
class's one construction in the program (across_modules.init_parameter). Anything else
(a library function's result, `dict.get`, `re.match`) may be None: not proved.

`isinstance(x, T)` reads only x's class, in the same way (class_test): a model each rank
builds for itself holds other random weights on every rank, but it is an instance of one
class on every rank (junyuseu/pytorch-cifar-models@cdb40bf main.py: `if isinstance(model,
(ResNet_Cifar, ...))` before an `else: return`, named by DP065 as a test that may differ
between ranks; stop 54 r2). Proved where every binding of x reaching the test builds it by
a call of a class (as for never-None) or of a function imported from another module (one
name, or a star import) with arguments alike on every rank, and T is a name (or a tuple of
names) bound only by an import or a class statement. Assumed: such a function, given the
same arguments, returns an instance of one class on every rank (it does not choose the
class by the rank).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import DefUse, view
from dp2ddp.flow.defuse import Definition
from dp2ddp.transforms.analysis.across_modules import init_parameter, stored_elsewhere
from dp2ddp.transforms.analysis.module_index import argument

if TYPE_CHECKING:
    from dp2ddp.transforms.analysis.uniformity import RankUniformity

#: Values that are never None whatever they hold.
_NEVER_NONE = (
    cst.Integer,
    cst.Float,
    cst.Imaginary,
    cst.SimpleString,
    cst.ConcatenatedString,
    cst.FormattedString,
    cst.Tuple,
    cst.List,
    cst.Set,
    cst.Dict,
    cst.ListComp,
    cst.SetComp,
    cst.DictComp,
    cst.GeneratorExp,
    cst.Lambda,
)


def none_test(u: RankUniformity, expr: cst.Comparison) -> bool:
    """`expr` is `X is None` or `X is not None` (None on either side) and X is never None:
    its truth is the same on every rank."""
    if len(expr.comparisons) != 1:
        return False
    target = expr.comparisons[0]
    if not isinstance(target.operator, (cst.Is, cst.IsNot)):
        return False
    left, right = expr.left, target.comparator
    if _is_none(right):
        return u.never_none(left)
    return _is_none(left) and u.never_none(right)


def never_none(u: RankUniformity, expr: cst.BaseExpression) -> bool:
    """`expr` is proved never None (see the module docstring). Its parts are asked through
    `u.never_none`, which remembers each node's answer (a node asked again while it is
    being answered: no), so a question costs at most the module's size."""
    flow = view(u.module)
    if isinstance(expr, _NEVER_NONE):
        return True
    if isinstance(expr, cst.Name):
        if expr.value in ("True", "False"):
            return True
        found = flow.reaching(expr)
        return bool(found) and all(_bound(u, flow, d) for d in found)
    if isinstance(expr, cst.Call):
        return _constructs(u, flow, expr)
    if isinstance(expr, cst.Attribute):
        return _attribute(u, expr)
    return False


def class_test(u: RankUniformity, call: cst.Call, at: cst.CSTNode) -> bool:
    """`call` is `isinstance(x, T)` with x's class and T the same on every rank (see the
    module docstring)."""
    flow = view(u.module)
    func = call.func
    if not (
        isinstance(func, cst.Name)
        and func.value == "isinstance"
        and not flow.definitions(func)
        and len(call.args) == 2
        and not any(a.keyword or a.star for a in call.args)
    ):
        return False
    value, classes = call.args[0].value, call.args[1].value
    parts = [e.value for e in classes.elements] if isinstance(classes, cst.Tuple) else [classes]
    if not all(_class_name(flow, part) for part in parts):
        return False
    if not isinstance(value, cst.Name):
        return False
    found = flow.reaching(value)
    return bool(found) and all(
        d.kind == "assign"
        and not d.element
        and isinstance(d.value, cst.Call)
        and _builds_one_class(u, flow, d.value, at)
        for d in found
    )


def _class_name(flow: DefUse, expr: cst.BaseExpression) -> bool:
    """A name (or `module.Name`) bound only by an import or a class statement."""
    while isinstance(expr, cst.Attribute):
        expr = expr.value
    if not isinstance(expr, cst.Name):
        return False
    return all(d.kind in ("import", "class") for d in flow.definitions(expr))


def _builds_one_class(u: RankUniformity, flow: DefUse, call: cst.Call, at: cst.CSTNode) -> bool:
    """`call` builds an instance of a class, or calls an imported function with arguments
    alike on every rank (see the module docstring)."""
    if _constructs(u, flow, call):
        return True
    func = call.func
    if not isinstance(func, cst.Name) or not _class_name(flow, func):
        return False
    if any(d.kind == "class" for d in flow.definitions(func)):
        return True
    if any(n.startswith(_DRAWING) for n in u.view.qualified_names(func)):
        return False  # `choice([A, B])`: a class drawn per rank
    return all(not a.star and u.value(a.value, at) for a in call.args)


#: Modules whose functions draw their result (a class picked at random differs per rank).
_DRAWING = ("random.", "numpy.random.", "torch.rand", "secrets.")


def _is_none(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "None"


def _constructs(u: RankUniformity, flow: DefUse, call: cst.Call) -> bool:
    """`call` builds an instance of a class: one of this module, one another module of the
    program defines at its top level (imported by name), or one of torch's (a qualified
    name under `torch.` whose last part is a class's, CapWords)."""
    if flow.class_called(call) is not None:
        return True
    names = u.view.qualified_names(call.func)
    if not names:
        return False
    if all(n.startswith("torch.") and n.rpartition(".")[2][:1].isupper() for n in names):
        return True
    program = u.program_uniform()
    if program is None or len(names) != 1 or not isinstance(call.func, cst.Name):
        return False
    module, _, name = next(iter(names)).rpartition(".")
    imported = module and u.index.imported_only(call.func.value)
    return bool(imported) and program[0].defines_class(module, name)


def _bound(u: RankUniformity, flow: DefUse, definition: Definition) -> bool:
    if definition.kind in ("def", "class"):
        return True
    if definition.kind == "param" and isinstance(definition.target, cst.Param):
        return _parameter(u, flow, definition.target)
    if definition.kind in ("assign", "annassign") and definition.value is not None:
        return not definition.element and u.never_none(definition.value)
    return False


def _parameter(u: RankUniformity, flow: DefUse, param: cst.Param) -> bool:
    """Every call of the parameter's function passes a never-None value (a method's own
    `self` is its instance)."""
    function = flow.function_around(param)
    if function is None or not isinstance(function.node, cst.FunctionDef):
        return False
    params = function.params
    if function.owner is not None and params and params[0] is param:
        return True  # `self`
    if param.star:
        return False
    node = function.node
    positional = [*node.params.posonly_params, *node.params.params]
    index = positional.index(param) if param in positional else None
    if index is not None and function.owner is not None:
        index -= 1
    owner = u.index.top_level_class(node)
    if owner is not None and node.name.value == "__init__":
        return init_parameter(u, owner, index, param.name.value, never_none=True)
    sites = flow.call_sites(function)
    return bool(sites) and all(_passes(u, s, param, index) for s in sites)


def _passes(u: RankUniformity, call: cst.Call, param: cst.Param, index: int | None) -> bool:
    """`call` passes a never-None value for `param` (its default where it passes none)."""
    value = argument(call, param.name.value, index)
    if value is None:
        if any(a.star for a in call.args):
            return False
        return param.default is not None and u.never_none(param.default)
    return u.never_none(value)


def _attribute(u: RankUniformity, expr: cst.Attribute) -> bool:
    """Every store of the attribute in the module is never None, where every rank arrives;
    no other module stores it; no class body binds the name (a default `opt = None`)."""
    attr = expr.attr.value
    stores = u.index.attribute_sets.get(attr, [])
    if not stores or stored_elsewhere(u, expr):
        return False
    for statement, value in stores:
        if value is None or not u.never_none(value):
            return False
        if u.rank_dependent_around(statement) is not None:
            return False
    return not any(
        isinstance(node, cst.ClassDef) and _class_binds(node, attr) for node in u.module.body
    )


def _class_binds(owner: cst.ClassDef, name: str) -> bool:
    if not isinstance(owner.body, cst.IndentedBlock):
        return False
    for statement in owner.body.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                targets: list[cst.BaseExpression] = []
                if isinstance(small, cst.Assign):
                    targets = [t.target for t in small.targets]
                elif isinstance(small, cst.AnnAssign):
                    targets = [small.target]
                if any(isinstance(t, cst.Name) and t.value == name for t in targets):
                    return True
    return False
