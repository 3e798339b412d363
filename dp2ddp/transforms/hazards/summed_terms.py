"""The terms of a backpropagated loss, followed into the module's own functions, and the
batch sums among them scaled by WORLD_SIZE one by one (issue 28, round 23).

A VAE's loss is a mean reconstruction plus a KL term summed over the batch, the sum written
in a helper method of a criterion class (Andrewzh112/codebase@45892e2 vae/loss.py:19-27:
`VAELoss.forward` returns `recon + self.KLD_Loss(mu, logvar)`, `KLD_Loss` returns
`self.beta / 2 * torch.sum(...)`), backpropagated in the script. DataParallel summed over
the whole batch; under DDP each rank sums its share and DDP averages the gradients, so the
KL term's gradient is 1/WORLD_SIZE of DataParallel's while the mean's is right. Scaling the
whole loss (hazards.losses, where every term sums) would double the mean's. Nothing was
said: the walk of the loss's terms (hazards.batch_terms) stopped at `r, k = a, b` and at
`self.kld(...)`.

The proof, per backward whose loss is not summed on every term (hazards.losses scales
those whole): its additive terms (batch_terms.additive_terms) through each name's bindings
in the scope, names bound by unpacking (`loss, r, k = crit(...)`, `r, k = a, b`; one that
`loss += extra` adds to as well, stop 71), elements picked by constant positions (`out[0]`
of `out = crit(...)`, `crit(...)[0]`, `res[0].backward()`, stop 71), calls of
the module's own functions, of methods of its classes (`self.kld(mu, logvar)`) and of
instances of its classes (their forward()), into each value those return (the element the
unpacking takes). Each leaf is classified by its reduction over the batch's rows: a
`.sum()` / `torch.sum()` over dim 0 with no batch reduction beneath whose summed value the
batch gives (batch_terms.BatchGiven, the arguments of each call on the way standing for its
parameters) is a sum over the rows, which needs WORLD_SIZE to keep DataParallel's gradient;
any other leaf (a mean, a weight penalty, what the walk cannot read) is left as it is, and
each term's gradient adds up on its own: a sum term scaled alone is DataParallel's
gradient, whatever its neighbours are.

The sum is rewritten in place, `(torch.sum(per) * WORLD_SIZE)` (the value that term holds
on each rank: WORLD_SIZE times its share of the batch, DataParallel's whole-batch sum for
equal shares), where the rewrite touches no other use: every function on the way from the
backward's scope is called once in the module (a method by name, a function by its name's
only use, a class's instance built once, bound to a name whose one use is the call), the
module is one no other module of the program imports, no whole-scaled loss holds the sum,
and `--keep-summed-loss` is off. Elsewhere DP004 at the sum says why it was left.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import DefUse, Function, origins, view
from dp2ddp.flow.children import tree_nodes
from dp2ddp.flow.returned import returned_values
from dp2ddp.transforms._support.names import SCALED_LOSS
from dp2ddp.transforms._support.visiting import read_tree
from dp2ddp.transforms.hazards.batch_sums import batch_sum as _batch_sum
from dp2ddp.transforms.hazards.batch_sums import is_loss_sum
from dp2ddp.transforms.hazards.batch_terms import (
    BatchGiven,
    additive_terms,
    pick_element,
    size_methods,
)
from dp2ddp.transforms.hazards.reductions import receiver as _receiver
from dp2ddp.transforms.hazards.replica_means import MEAN
from dp2ddp.transforms.hazards.scopes import ScopeFacts
from dp2ddp.transforms.hazards.told_sums import picked as told_picked
from dp2ddp.transforms.hazards.told_sums import told_sum_terms

if TYPE_CHECKING:
    from dp2ddp.transforms.hazards.losses import LossChecks

_Bound = dict[str, list[cst.BaseExpression]]
#: A call followed into the function it runs (its parameters bound by the call's arguments).
Site = tuple[cst.Call, Function]
#: How deep the walk follows calls and unpackings.
_DEPTH = 6


@dataclass(frozen=True)
class Term:
    """One additive leaf of a loss: the node, its scope's bindings, the calls followed from
    the backward's scope to its function (outermost first)."""

    node: cst.BaseExpression
    bound: _Bound
    sites: tuple[Site, ...] = ()

    @property
    def site(self) -> Site | None:
        return self.sites[-1] if self.sites else None


class LossTerms:
    """The walk of a module's loss terms (the module docstring), over its def-use view."""

    def __init__(self, given: BatchGiven, by_sizes: bool) -> None:
        self.given = given
        self.flow: DefUse = given.flow
        self.by_sizes = by_sizes
        self._scopes: dict[cst.CSTNode, _Bound] = {}

    def terms(self, values: list[cst.BaseExpression], assigned: _Bound) -> list[Term]:
        found: list[Term] = []
        for value in values:
            found += self._follow(value, assigned, (), 0)
        return list({id(t.node): t for t in found}.values())

    def _bound(self, function: Function) -> _Bound:
        node = function.node
        if node not in self._scopes:
            scope = ScopeFacts(node, self.given.qualified_names)
            read_tree(node, scope)
            self._scopes[node] = scope.assigned
        return self._scopes[node]

    def _follow(
        self, value: cst.BaseExpression, assigned: _Bound, sites: tuple[Site, ...], depth: int
    ) -> Iterator[Term]:
        sizes = self._sizes(sites)
        for leaf in additive_terms(value, assigned, sizes=sizes, by_sizes=self.by_sizes):
            deeper = list(self._into(leaf, assigned, sites, depth)) if depth < _DEPTH else []
            if deeper:
                yield from deeper
            else:
                yield Term(leaf, assigned, sites)

    def _sizes(self, sites: tuple[Site, ...]) -> frozenset[str]:
        owner = sites[-1][1].owner if sites else None
        return size_methods(owner) if owner is not None else frozenset()

    def _into(
        self, leaf: cst.BaseExpression, assigned: _Bound, sites: tuple[Site, ...], depth: int
    ) -> Iterator[Term]:
        """What the leaf is made of where it is a name bound by unpacking, a call of the
        module's own function, or an element of either picked by constant positions
        (`out[0]` of `out = crit(...)`, `crit(...)[0]`: round 23's VAE tuple): the returned
        values' terms (none where it is neither)."""
        base, path = told_picked(leaf)
        if isinstance(base, cst.Call):
            yield from self._returned(base, path, sites, depth)
            return
        if not isinstance(base, cst.Name) or (not path and base.value in assigned):
            return  # a plain binding: additive_terms followed it
        yield from self.unpacked(base, assigned, sites, depth, path, plain=bool(path))

    def unpacked(
        self,
        name: cst.Name,
        assigned: _Bound,
        sites: tuple[Site, ...] = (),
        depth: int = 0,
        path: tuple[int, ...] = (),
        plain: bool = False,
    ) -> Iterator[Term]:
        """The terms of the element at `path` of each binding of `name` by unpacking
        (`loss, rec, kl = crit(...)`; `plain`: by a whole value too, `out = crit(...)`
        read as `out[0]`), the bindings that reach it (a name `loss += extra` adds to
        as well: additive_terms followed the plain ones)."""
        for definition in self.flow.reaching(name):
            if definition.kind != "assign" or not (definition.element or plain):
                continue
            found, rest = pick_element(definition.value, (*definition.element, *path))
            if found is not None and not rest:
                yield from self._follow(found, assigned, sites, depth + 1)
            elif isinstance(found, cst.Call):
                yield from self._returned(found, rest, sites, depth)
                if not path and self.callee(found) is None:  # another module's: told_sums
                    yield Term(name, assigned, sites)

    def _returned(
        self, call: cst.Call, element: tuple[int, ...], sites: tuple[Site, ...], depth: int
    ) -> Iterator[Term]:
        function = self.callee(call)
        if function is None:
            return
        for returned in returned_values(self.flow, function):
            picked, rest = pick_element(returned, element)
            if picked is not None and not rest:
                inner = (*sites, (call, function))
                yield from self._follow(picked, self._bound(function), inner, depth + 1)

    def callee(self, call: cst.Call) -> Function | None:
        """The one function of the module `call` runs: a function, a method of one of its
        classes (`self.kld(...)`), an instance's forward() (`crit(...)`); None where there
        is none or several."""
        found = [f for f in self.flow.callees(call) if f.name != "__init__"]
        if not found and isinstance(call.func, cst.Name):
            for origin in origins(self.flow, call.func):
                owner = (
                    self.flow.class_called(origin.node)
                    if origin.kind == "instance" and isinstance(origin.node, cst.Call)
                    else None
                )
                method = None if owner is None else self.flow.method(owner, "forward")
                if method is not None and method not in found:
                    found.append(method)
        return found[0] if len(found) == 1 else None

    def only_use(self, site: Site) -> str:
        """Why rewriting in `site`'s function may change another caller's value ("" where
        `site`'s call is the only one)."""
        call, function = site
        name = function.name
        if isinstance(call.func, cst.Attribute):
            sites = self.flow.call_sites(function)
            return "" if sites == [call] else f"{name}() is called {len(sites)} times"
        if not isinstance(call.func, cst.Name):
            return f"{name}() is not called by its name"
        definitions = self.flow.definitions(call.func)
        if len(definitions) != 1:
            return f"`{call.func.value}` has {len(definitions)} bindings"
        uses = [
            n
            for n in tree_nodes(self.flow.module)
            if isinstance(n, cst.Name)
            and n.value == call.func.value
            and n is not definitions[0].target
            and definitions[0] in self.flow.definitions(n)
        ]
        if uses != [call.func]:
            return f"`{call.func.value}` is used {len(uses)} times"
        built = definitions[0].value
        if definitions[0].kind in ("def",):
            return ""
        owner = self.flow.class_called(built) if isinstance(built, cst.Call) else None
        if owner is None or function.owner is not owner:
            return f"`{call.func.value}` is not proved an instance built here"
        constructions = [c for c in self.flow.calls if self.flow.class_called(c) is owner]
        if constructions != [built]:
            return f"{owner.name.value} is built {len(constructions)} times"
        return ""


def scaled_already(flow: DefUse, node: cst.CSTNode) -> bool:
    """`(X * WORLD_SIZE)` as this pass writes a sum term: X was scaled by an earlier run."""
    parent = flow.parent(node)
    return (
        isinstance(parent, cst.BinaryOperation)
        and parent.left is node
        and isinstance(parent.operator, cst.Multiply)
        and isinstance(parent.right, cst.Name)
        and parent.right.value == "WORLD_SIZE"
    )


class _Scale(cst.CSTTransformer):
    """Each marked node `X` (an original node the pass's changes left as it was) becomes
    `(X * WORLD_SIZE)`."""

    def __init__(self, marked: set[cst.CSTNode]) -> None:
        super().__init__()
        self.marked = marked
        self.done: set[cst.CSTNode] = set()

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):  # type: ignore[no-untyped-def]
        if original_node in self.marked and isinstance(updated_node, cst.BaseExpression):
            self.done.add(original_node)
            return cst.BinaryOperation(
                left=updated_node,
                operator=cst.Multiply(),
                right=cst.Name("WORLD_SIZE"),
                lpar=[cst.LeftParen()],
                rpar=[cst.RightParen()],
            )
        return updated_node


def scale_terms(
    module: cst.Module, marked: set[cst.CSTNode]
) -> tuple[cst.Module, set[cst.CSTNode]]:
    """`module` with each marked sum scaled, and the marked nodes it found unchanged."""
    if not marked:
        return module, set()
    scale = _Scale(marked)
    return module.visit(scale), scale.done


#: DP221's end for a batch sum among a loss's terms of a wrapped model's output whose class
#: is not read (stop 70 across).
_UNREAD_TERM = "left unscaled beside other terms (a sum over the batch needs * WORLD_SIZE)"


def unpacked_loss(checks: LossChecks, loss: cst.BaseExpression) -> bool:
    """Whether `loss` (what backward() is called on) is a name a binding by unpacking
    reaches (`loss, rec, kl = crit(...)` then `loss += extra`): the scope's plain bindings
    (ScopeFacts.assigned) are not all its terms, so it is not proved summed on every term."""
    module = checks._module
    if module is None or not isinstance(loss, cst.Name):
        return False
    return any(d.kind == "assign" and d.element for d in view(module).reaching(loss))


def mixed_sums(
    checks: LossChecks,
    values: list[cst.BaseExpression],
    assigned: _Bound,
    loss: cst.BaseExpression | None = None,
) -> None:
    """The batch sums among the terms of a loss backpropagated unscaled (not summed on
    every term): each marked to be scaled alone (checks.term_scales: its record), or said
    (DP004) where the rewrite could change another use; a sum another module's loss
    returns (told_sums) is said. `loss`: the name backward() is called on, where bindings
    by unpacking reach it beside the plain `values` (unpacked_loss)."""
    t = checks.t
    told = dict(t.state.facts.batch_sum_returns)  # other modules' (told_sums)
    told |= checks._own_sums()  # and this module's own classes' and functions'
    module = checks._module
    if module is None or (t.state.text_count("sum") == 0 and not told):
        return  # a module that never spells "sum" has no batch sum to say
    if checks._given is None:  # the module's def-use view, once, where a loss needs it
        checks._given = BatchGiven(view(module), t.qualified_names)
    given = checks._given
    # a quotient by a row's size is a sum over the batch where the batch is dimension 0
    dims = set(t.state.scatter_dims) or set(t.state.hints.scatter_dims)
    walk = LossTerms(given, by_sizes=dims <= {"0"})
    terms = walk.terms(values, assigned)
    if isinstance(loss, cst.Name):  # its bindings by unpacking, beside the plain ones
        known = {id(t.node) for t in terms}
        terms += [t for t in walk.unpacked(loss, assigned) if id(t.node) not in known]
    for term, detail in told_sum_terms(given, [x.node for x in terms], told, dims <= {"0"}):
        if term not in checks._said_terms:
            checks._said_terms.add(term)
            t.warn(term, "DP004", detail)
    for found in terms:
        term = found.node
        if term in checks._said_terms or not is_loss_sum(term, t):
            continue
        receiver = _receiver(term, t) if isinstance(term, cst.Call) else None
        if (
            receiver is None
            or _batch_sum(term, found.bound, t) is not True
            or not given(receiver, found.site, found.sites[:-1])
            or checks.replicas().outputs(term) == MEAN  # replica means, rightly unscaled
            or checks.unread_sum(term, term, _UNREAD_TERM)
        ):
            continue
        checks._said_terms.add(term)
        if scaled_already(given.flow, term):
            continue  # `(torch.sum(x) * WORLD_SIZE)`: a migrated file's
        why = _left_because(checks, walk, found)
        if why:
            t.warn(
                term,
                "DP004",
                f"{t.code(term)} sums the batch beside terms that do not: left unscaled "
                f"(its gradient 1/WORLD_SIZE of DataParallel's; {why})",
            )
            continue
        through = "".join(f" through {site[1].name}()" for site in found.sites)
        checks.term_scales[term] = (
            f"{SCALED_LOSS} term {t.code(term)} by WORLD_SIZE{through}: it sums the batch "
            "beside terms that do not, so the loss is not scaled whole; DDP averages the "
            "ranks' gradients, DataParallel summed this term over the whole batch (its "
            "value is WORLD_SIZE times this rank's share)"
        )


def _left_because(checks: LossChecks, walk: LossTerms, term: Term) -> str:
    """Why the sum is not rewritten in place ("" where it may be)."""
    if checks.t.state.options.keep_summed_loss:
        return "--keep-summed-loss"
    if term.sites and checks.t.state.hints.imported:
        return "its function is in a module the program imports: other callers may read it"
    for site in term.sites:
        why = walk.only_use(site)
        if why:
            return f"{why}: scaling it in {term.sites[-1][1].name}() would change every use"
    return ""
