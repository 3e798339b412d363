"""The value a statement binds a name to, where it is plain to see (data/counters.py's
running sums: the value they start from before the loop)."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from dp2ddp.flow.defuse import suppresses
from dp2ddp.transforms._support.nodes import walk


def bound_value(statement: cst.BaseStatement, name: str) -> tuple[bool, cst.BaseExpression | None]:
    """Whether `statement` binds `name`, and to what value when that is plain to see: the
    last binding of a `with` body too (it runs whenever the `with` does, unless it may
    suppress an exception: `with torch.no_grad(): total = 0.0` binds total to 0.0; stop 66,
    dummy-ai/tacotron-pytorch@2d99b60 started its running loss in `with Timed(...):`, and
    the loss it printed, rank 0's share, was not said)."""
    if isinstance(statement, cst.With) and not suppresses(statement):
        body = statement.body.body if isinstance(statement.body, cst.IndentedBlock) else ()
        for inner in reversed(body):
            found = bound_value(inner, name)
            if found[0]:
                return found
    if isinstance(statement, cst.SimpleStatementLine):
        for small in reversed(statement.body):
            if isinstance(small, cst.Assign):
                for assign_target in small.targets:
                    target = assign_target.target
                    if isinstance(target, cst.Name) and target.value == name:
                        return True, small.value
                    if isinstance(target, (cst.Tuple, cst.List)):
                        names = [e.value for e in target.elements]
                        hit = [
                            i
                            for i, n in enumerate(names)
                            if isinstance(n, cst.Name) and n.value == name
                        ]
                        if hit:
                            value = small.value
                            if not isinstance(value, (cst.Tuple, cst.List)):
                                return True, None
                            if len(value.elements) != len(names):
                                return True, None
                            return True, value.elements[hit[0]].value
            elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
                if isinstance(small.target, cst.Name) and small.target.value == name:
                    return True, small.value if isinstance(small, cst.AnnAssign) else None
        return False, None
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
        # Binds its own name only: what its body binds is its own scope's (a `val()`
        # with a local `loss_avg` before the module's loop that feeds the module's
        # `loss_avg`: meijieru/crnn.pytorch, class F1 of stop 34).
        return statement.name.value == name, None
    for node in walk(statement, skip_scopes=True):
        targets: list[cst.CSTNode] = []
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign, cst.For)):
            targets = [node.target]
        for bound in targets:
            if any(isinstance(n, cst.Name) and n.value == name for n in walk(bound)):
                return True, None
    return False, None


def bound_under_if(statement: cst.CSTNode, name: str) -> cst.BaseExpression | None:
    """The value a branch of an `if` statement last binds `name` to, as a plain statement
    of the branch (`if do_iou: iou_train = IouEval(n)`, round 39, xiaoyufenfei/
    LEDNet@5d900d9: a meter built under an option in the epoch loop, fed with this rank's
    batches, its IoU printed: no DP030 before). A figure said where it may be bound so."""
    if not isinstance(statement, cst.If):
        return None
    branches: list[cst.BaseSuite] = [statement.body]
    orelse = statement.orelse
    while orelse is not None:
        branches.append(orelse.body)
        orelse = orelse.orelse if isinstance(orelse, cst.If) else None
    for branch in branches:
        if not isinstance(branch, cst.IndentedBlock):
            continue
        for inner in reversed(list(branch.body)):
            bound, value = bound_value(inner, name)
            if bound:
                return value
    return None


def all_targets(small: cst.BaseSmallStatement) -> Iterator[cst.BaseExpression]:
    """Every leaf an assignment stores to, names or not."""

    def leaves(target: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                yield from leaves(element.value)
        else:
            yield target

    if isinstance(small, cst.Assign):
        for target in small.targets:
            yield from leaves(target.target)
    elif isinstance(small, cst.AnnAssign):
        yield from leaves(small.target)
