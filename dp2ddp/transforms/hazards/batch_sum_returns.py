"""Loss classes and functions that return a sum over the batch of what they are passed: a
fact of one module, told to the program's other modules (ProgramFacts.batch_sum_returns).

xcmyz/VAE-Tacotron@d57dd0a: `VAE_TacotronLoss.forward` (loss.py:31-32) returns `kl_div =
-0.5 * torch.sum(1 + log_var - mu.pow(2) - log_var.exp())` third in a tuple beside two batch
means, and train.py builds `loss = mel_loss + 0.5 * linear_loss + kl_div` from
`criterion(...)`'s tuple. Under DDP the KL term's gradient is 1/WORLD_SIZE of DataParallel's;
the module that calls backward() cannot see the sum (stop 47 v2-C). Here, for each top-level
function and each top-level class's forward(), the additive terms (hazards.batch_terms) of
each value it returns (each element of a returned tuple, nested ones too) that are a `.sum()` /
`torch.sum()` over dim 0 with no batch reduction beneath (hazards.losses' proof) and whose
summed value comes, through the module's def-use view, only from constants and the
function's own parameters (at least one): the caller proves those arguments are its batch
(hazards.told_sums). A weight penalty over `self.weight` (an attribute) or a draw is no such
sum, nor a hand mean (`x.sum() / x.size(0)`: divided by a size, not a term).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import libcst as cst
from libcst.codemod import CodemodContext

from dp2ddp.facts import BatchSumReturn
from dp2ddp.flow import DefUse, Function, origins, view
from dp2ddp.options import MigrateOptions
from dp2ddp.transforms._support.base import MigrationState, MigrationTransform
from dp2ddp.transforms._support.visiting import read_tree
from dp2ddp.transforms.hazards.batch_terms import additive_terms
from dp2ddp.transforms.hazards.losses import _batch_sum, is_loss_sum
from dp2ddp.transforms.hazards.reductions import receiver as _receiver
from dp2ddp.transforms.hazards.scopes import ScopeFacts

#: A text that may return a sum: a `.sum(` or `torch.sum(` call and a `return`.
_MAY_SUM = re.compile(r"\bsum\s*\(")


class _ExportBatchSums(MigrationTransform):
    """Reads a module of the program: its functions' and forward()s' returned batch sums
    (changes nothing)."""

    NAME = "batch_sum_returns"
    DESCRIPTION = "Find the loss functions that return a sum over the batch, for DP004."

    def __init__(self, context: CodemodContext, state: MigrationState, path: str) -> None:
        super().__init__(context, state)
        self.path = path
        self.found: dict[str, tuple[BatchSumReturn, ...]] = {}

    def visit_Module(self, node: cst.Module) -> bool:
        flow = view(node)
        for statement in node.body:
            named: list[tuple[str, cst.FunctionDef]] = []
            if isinstance(statement, cst.FunctionDef):
                named.append((statement.name.value, statement))
            elif isinstance(statement, cst.ClassDef) and isinstance(
                statement.body, cst.IndentedBlock
            ):
                named += [
                    (f"{statement.name.value}.forward", s)
                    for s in statement.body.body
                    if isinstance(s, cst.FunctionDef) and s.name.value == "forward"
                ]
            for name, definition in named:
                function = flow.functions.get(definition)
                found = self._sums(function, flow) if function is not None else ()
                if found:
                    self.found[name] = found
        return False

    def _sums(self, function: Function, flow: DefUse) -> tuple[BatchSumReturn, ...]:
        scope = ScopeFacts(function.node, self.qualified_names)
        read_tree(function.node, scope)
        own = function.params[1:] if function.self_name is not None else function.params
        found: list[BatchSumReturn] = []
        for returned in function.returns:
            for (position, back), value in _elements(returned, ((), ())):
                for term in additive_terms(value, scope.assigned):
                    if (
                        not is_loss_sum(term, self)
                        or _batch_sum(term, scope.assigned, self) is not True
                    ):
                        continue
                    assert isinstance(term, cst.Call)
                    receiver = _receiver(term, self)
                    params = _summed_params(flow, receiver, own) if receiver is not None else ()
                    if params:
                        line = self._position(term)[0]
                        found.append(
                            BatchSumReturn(
                                position, params, self.code(term), f"{self.path}:{line}", back
                            )
                        )
        return tuple(dict.fromkeys(found))


def _elements(
    value: cst.BaseExpression, path: tuple[tuple[int, ...], tuple[int, ...]]
) -> list[tuple[tuple[tuple[int, ...], tuple[int, ...]], cst.BaseExpression]]:
    """Each element of a returned value by its path into nested tuples (`return total, (rec,
    kl)`: (0,), (1, 0), (1, 1)), with the same path counted from each tuple's end ((-2,),
    (-1, -2), (-1, -1)); a value not a tuple: itself, at ()."""
    if not isinstance(value, cst.Tuple):
        return [(path, value)]
    size = len(value.elements)
    return [
        found
        for index, element in enumerate(value.elements)
        for found in _elements(element.value, ((*path[0], index), (*path[1], index - size)))
    ]


def _summed_params(
    flow: DefUse, value: cst.BaseExpression, own: list[cst.Param]
) -> tuple[tuple[int, str], ...]:
    """The function's parameters `value` comes from, where it comes only from them and
    constants; () otherwise."""
    params: set[tuple[int, str]] = set()
    for origin in origins(flow, value):
        if origin.selects or origin.kind == "constant":
            continue
        if origin.kind != "parameter" or origin.node not in own:
            return ()
        assert isinstance(origin.node, cst.Param)
        params.add((own.index(origin.node), origin.node.name.value))
    return tuple(sorted(params))


def module_batch_sum_returns(
    import_name: str,
    path: str,
    source: str,
    parsed: Callable[[], cst.Module | None],
) -> dict[str, tuple[BatchSumReturn, ...]]:
    """Another module's returned batch sums, by the qualified name an importer resolves
    (`loss.VAELoss.forward`, `loss.vae_loss`). Read only where the text can return one."""
    if "return" not in source or "torch" not in source or not _MAY_SUM.search(source):
        return {}
    module = parsed()
    if module is None:
        return {}
    state = MigrationState(MigrateOptions())
    state.text = source
    reader = _ExportBatchSums(CodemodContext(filename=path), state, path)
    reader.transform_module(module)
    return {f"{import_name}.{name}": sums for name, sums in reader.found.items()}
