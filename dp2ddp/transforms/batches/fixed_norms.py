"""DP216: a batch fixed before the training loop, run whole through a model that normalises
it with BatchNorm in train mode.

The proof leaves a sample batch fixed before the loop whole (stepped.fixed_sample: noise
drawn once, `netG(fixed_z)` for a grid of samples each epoch): every rank computes all of
it, as DataParallel gathered all of it. That is DataParallel's result only where each row's
output depends on that row alone. BatchNorm in train mode normalises by the statistics of
the batch it is given: DataParallel gave each GPU's replica one chunk of the fixed batch
and each normalised its chunk by the chunk's own mean and variance (and replica 0's chunk
moved the running statistics); every rank now normalises the whole batch by the whole
batch's. The samples differ from DataParallel's (the sample grid of stop 66's issue
28, "sample grids come out halved") and the running statistics move by other figures.
Proved quiet only where the model is in eval mode at the call (the latest `.eval()` /
`.train(False)` before it in its function, grad_mode.module_mode's reading) or no class
the wrap builds in this module holds a BatchNorm layer (a model built elsewhere is not
followed: said nothing, as DP008 says the layers where it finds them). A sample helper the
loop hands the wrap (`@torch.no_grad() def sample(net, z): return net(z)`, called as
`sample(netG, fixed_z)`; analysis/handed_wraps.py) is read at its call site: the loop, the
mode and the fixed batch are the site's, the warning at the model call in the helper.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import DefUse, origins, view
from dp2ddp.flow.defuse import Function
from dp2ddp.flow.origins import Origin, argument_for
from dp2ddp.transforms._support.grad_mode import grad_off, module_mode
from dp2ddp.transforms._support.nodes import ModuleNodes, calls_model, name_of, walk
from dp2ddp.transforms.analysis.norm_layers import NORM_LAYERS, TORCHVISION_BN
from dp2ddp.transforms.analysis.wrap_calls import own_functions_that_wrap, wrapper_results
from dp2ddp.transforms.batches.stepped import fixed_sample

if TYPE_CHECKING:
    from dp2ddp.transforms.batches import ShardBatches

#: Calls that hand back the module they are called on (`Net().to(device)`).
_SAME_MODULE = frozenset({"to", "cuda", "cpu", "float", "double", "half", "train", "eval"})


def warn_fixed_norm_calls(proof: ShardBatches, module: cst.Module, nodes: ModuleNodes) -> None:
    """DP216 at each call of a wrapped model in a training loop whose every input is a
    sample batch fixed before the loop (stepped.fixed_sample), where the model is not
    proved in eval mode there and its class holds BatchNorm (see the module docstring)."""
    # also a wrap another module's function built (`netG = generator_init(device)`)
    wrappers = own_functions_that_wrap(module, proof._is_dp) | {*proof.state.facts.wrap_functions}
    built = wrapper_results(module, proof, frozenset(wrappers), proof._is_dp)
    wrapped = set(proof._models) | built.spelled
    handed = proof._handed_wraps(module, wrapped)
    if not wrapped and not built and not handed:
        return
    flow: DefUse | None = None
    norms: dict[str, str] = {}  # model -> the class holding BatchNorm, once per model
    for call in nodes.of(cst.Call):
        if not call.args or call in proof._split_calls:
            continue
        func = call.func  # `netG.forward(z)` calls the wrap as `netG(z)` does
        forward = isinstance(func, cst.Attribute) and func.attr.value == "forward"
        receiver = func.value if isinstance(func, cst.Attribute) and forward else func
        here = proof._handed_here(call, handed)
        if calls_model(call, set(here)):
            # a sample helper handed the wrap (`@torch.no_grad() def sample(net, z):
            # return net(z)`, called in the loop as `sample(netG, fixed_z)`): the batch and
            # the loop are its call site's, the model the wrap the site hands it
            flow = flow or view(module)
            helper = flow.function_around(call)
            if helper is not None:
                _warn_in_helper(proof, flow, nodes, call, helper, wrapped, norms)
        elif calls_model(call, wrapped) or (
            isinstance(receiver, cst.Name) and built.holds(receiver, lambda: view(module))
        ):
            flow = flow or view(module)
            _warn_fixed_input(proof, flow, nodes, call, call, proof.code(receiver), norms)


def _warn_in_helper(
    proof: ShardBatches,
    flow: DefUse,
    nodes: ModuleNodes,
    call: cst.Call,
    helper: Function,
    wrapped: set[str],
    norms: dict[str, str],
) -> None:
    """DP216 at `call`, a call of `helper`'s parameter a call hands the wrap, for the first
    call site of `helper` where `_warn_fixed_input` finds it so."""
    func = call.func
    receiver = func.value if isinstance(func, cst.Attribute) else func
    param = proof.code(receiver)
    mode = _mode_at(proof, flow, call, param, default=None)  # the helper's own, if any
    for site in flow.call_sites(helper):
        given = _handed_argument(site, helper, param)
        if given is not None and proof.code(given) in wrapped:
            if _warn_fixed_input(proof, flow, nodes, call, site, proof.code(given), norms, mode):
                return


def _warn_fixed_input(
    proof: ShardBatches,
    flow: DefUse,
    nodes: ModuleNodes,
    call: cst.Call,
    site: cst.Call,
    model: str,
    norms: dict[str, str],
    mode: str | None = None,
) -> bool:
    """DP216 at `call` (a call of the wrap `model`, made at `site`: the call itself, or the
    call of the helper `call` is in) where `site` is in a training loop, every input of
    `call` is a sample fixed before it, the model holds BatchNorm and is not in eval mode
    (`mode`, the helper's own, else the mode at `site`)."""
    # under `torch.no_grad()` too (the proof's loops leave those out): BatchNorm in
    # train mode normalises by the batch's statistics with gradients off as well
    loop = proof._loop_around(lambda: flow, _outside_no_grad(proof, site), set())
    if loop is None:
        return False
    if model not in norms:
        norms[model] = _holds_norm(proof, flow, nodes, model)
    if not norms[model] or (mode or _mode_at(proof, flow, site, model)) == "eval":
        return False
    found = [o for a in call.args if not a.star for o in origins(flow, a.value)]
    if not found or any(a.star for a in call.args):
        return False
    if site is not call:  # the helper's parameters: the values this site hands them
        found = _site_origins(flow, call, site, found)
        if not found:
            return False
    wrapped = {model}
    if all(
        fixed_sample(proof, flow, site, loop, o) and not _excluded(proof, o.node, wrapped)
        for o in found
    ):
        line = proof.input_position(found[0].node)[0]
        via = (
            ""
            if site is call
            else f" (by {proof.code(site)}, line {proof.input_position(site)[0]})"
        )
        proof.warn(
            call,
            "DP216",
            f"{proof.code(call)}{via}: its input fixed before the loop (line {line}), "
            f"{model} in train mode holding {norms[model]}'s BatchNorm",
        )
        return True
    return False


def _outside_no_grad(proof: ShardBatches, call: cst.Call) -> cst.CSTNode:
    """The outermost `with` turning gradients off around `call` in its function, else
    `call`: the node whose training loop is the call's."""
    node: cst.CSTNode = call
    for ancestor in proof._ancestors_to(call, None):
        if isinstance(ancestor, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            break
        if isinstance(ancestor, cst.With) and any(
            grad_off(item.item, proof.matches) for item in ancestor.items
        ):
            node = ancestor
    return node


def _site_origins(
    flow: DefUse, call: cst.Call, site: cst.Call, found: list[Origin]
) -> list[Origin]:
    """The origins of what `site` hands the parameters of the helper around `call` that
    `call`'s inputs come from (`found`, walked through every call site of the helper: one
    walk visits a definition once, through whichever site it reached first); [] where an
    input is built in the helper itself (not a value the site hands it)."""
    helper = flow.function_around(call)
    if helper is None:
        return []
    slots: dict[cst.CSTNode, cst.Param] = {}  # each site's argument -> the parameter
    for other in flow.call_sites(helper):
        for param in helper.params:
            argument = argument_for(other, helper, param)
            if argument is not None:
                slots[argument] = param
    used: list[cst.Param] = []
    for origin in found:
        crossed = [slots[step.node] for step in origin.path if step.node in slots]
        if not crossed:
            return []
        used += [p for p in crossed if p not in used]
    given = [argument_for(site, helper, p) for p in used]
    return [o for g in given if g is not None for o in origins(flow, g)]


def _handed_argument(site: cst.Call, helper: Function, param: str) -> cst.BaseExpression | None:
    """What `site` passes `helper`'s parameter named `param`."""
    node = helper.node
    if not isinstance(node, cst.FunctionDef):
        return None
    params = [*node.params.posonly_params, *node.params.params, *node.params.kwonly_params]
    for candidate in params:
        if candidate.name.value == param:
            return argument_for(site, helper, candidate)
    return None


def _excluded(proof: ShardBatches, node: cst.CSTNode, wrapped: set[str]) -> bool:
    """Sources no fixed sample batch is: a model's output, a loader, dp2ddp's own helpers
    (a rank's share, a state)."""
    if not isinstance(node, cst.Call):
        return False
    return (
        calls_model(node, wrapped)
        or proof._is_loader(node)
        or name_of(node.func).startswith("ddp_")
    )


def _mode_at(
    proof: ShardBatches, flow: DefUse, call: cst.Call, model: str, default: str | None = "train"
) -> str | None:
    """The mode the latest `<model>.eval()` / `.train(...)` (or through `.module`) before
    `call` in its function (or module level) puts the model in, in the text's order: a
    loop's `model.train()` at its top reads as train at a sample call after it. `default`
    where none is called ("train": a module's default; None in a helper handed the model:
    its caller's mode)."""
    function = flow.function_around(call)
    body = function.node if function is not None else flow.module
    receivers = {model, f"{model}.module"}
    mode: str | None = default
    for node in walk(body, skip_scopes=function is None):
        if node is call:
            return mode
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in ("eval", "train")
            and proof.code(node.func.value) in receivers
        ):
            mode = module_mode(node)
    return mode


def _holds_norm(proof: ShardBatches, flow: DefUse, nodes: ModuleNodes, model: str) -> str:
    """The class holding BatchNorm that `model` wraps, "" where none is proved: a wrap of
    this module around a construction (through a name it binds, `.to(...)` and the like)
    of a BatchNorm layer, a torchvision model built with them, a class of this module whose
    body builds one (or a class of it it builds) or a class of the program whose facts say
    so (ModelClass.norms). A model this module does not wrap (another module's function
    built it: `netG = generator_init(device)`) may be any class the program wraps: one of
    those that holds BatchNorm is named, the first."""
    wraps = [
        wrap
        for wrap in nodes.of(cst.Call)
        if proof._is_dp(wrap)
        and wrap.args
        and isinstance(assign := proof.parent(wrap), cst.Assign)
        and assign.value is wrap
        and any(proof.code(t.target) == model for t in assign.targets)
    ]
    if not wraps:
        return next((m.name for m in proof.state.facts.models if m.norms and m.held), "")
    for wrap in wraps:
        for built in _constructions(flow, wrap.args[0].value):
            holder = _built_with_norm(proof, flow, built, set())
            if holder:
                return holder
    return ""


def _constructions(flow: DefUse, value: cst.BaseExpression, depth: int = 0) -> list[cst.Call]:
    """The calls whose result `value` (a wrap's first argument) is: through the methods
    that hand back the module they are called on and the assignments of a name."""
    for _ in range(8):  # `Net().to(d).float()`: a few hops at most
        if (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value in _SAME_MODULE
        ):
            value = value.func.value
        else:
            break
    if isinstance(value, cst.Call):
        return [value]
    if isinstance(value, cst.Name) and depth < 8:
        return [
            c
            for d in flow.definitions(value)
            if d.kind == "assign" and d.value is not None
            for c in _constructions(flow, d.value, depth + 1)
        ]
    return []


def _built_with_norm(
    proof: ShardBatches, flow: DefUse, call: cst.Call, seen: set[cst.ClassDef]
) -> str:
    """The class `call` builds where it holds BatchNorm (see _holds_norm), "" if none:
    a class of this module followed through the classes it builds, each once."""
    names = proof.qualified_names(call.func)
    if names & NORM_LAYERS or any(TORCHVISION_BN.match(n) for n in names):
        return proof.code(call.func)
    if names & {m.name for m in proof.state.facts.models if m.norms}:
        return proof.code(call.func)
    owner = flow.class_called(call)
    if owner is None or owner in seen:
        return ""
    seen.add(owner)
    inner = (c for c in walk(owner.body) if isinstance(c, cst.Call))
    return owner.name.value if any(_built_with_norm(proof, flow, c, seen) for c in inner) else ""
