"""Data handed to an evaluation through a call: the statements making it are a dataset's.

Stop 52 (s2) shared the draws of the statements that make what a call of the wrapped model
every rank makes whole is given (`xv = X[val_idx]`, `val_idx = np.random.choice(64, 16)`
before the loop, `model(xv)` under no_grad()): each rank drawing its own, rank 0's figure
(and a best checkpoint or an early stop it decides) would be of a set no other rank
evaluated. That slice starts at the model's own call, so a validation set handed to an
evaluating function (`v = evaluate(model, X[val_idx], Y[val_idx])`, `def evaluate(net, xs,
ys)` running `net(xs)` under no_grad()) was not followed: its draw stayed per rank.

Here a call of this module's function (the def-use view's callees, every one) given the
wrapped model, as spelled at the wrap, whose parameter bound to it is called in the callee
only where every rank computes it whole (gradients off, or in no loop of the callee that
trains: `evaluated`) hands its other arguments to an evaluation: what they read is followed
back as the model call's arguments are (stop 53, s3).
"""

from __future__ import annotations

from collections.abc import Callable, Collection

import libcst as cst

from dp2ddp.flow import DefUse, view
from dp2ddp.flow.defuse import Function
from dp2ddp.transforms._support.nodes import calls_model, code_of, name_of, nodes_of, walk


def handed_to_evaluation(
    flow: Callable[[], DefUse],
    call: cst.Call,
    wrapped: Collection[str],
    last: Collection[str],
    evaluated: Callable[[cst.Call, cst.CSTNode], bool],
) -> list[cst.BaseExpression]:
    """The arguments `call` hands an evaluation beside the wrapped model (the module
    docstring); [] where it hands the model to no such function. `last`: the last names of
    the wraps' spellings, asked first; `evaluated(model_call, function)`: the caller's
    reading of a call every rank makes whole; `flow`: the module's view, asked only where
    the model is handed (most modules the pass reads need none)."""
    at = next(
        (
            i
            for i, a in enumerate(call.args)
            if isinstance(a.value, (cst.Name, cst.Attribute))
            and name_of(a.value) in last
            and code_of(a.value) in wrapped
        ),
        None,
    )
    if at is None:
        return []
    functions = flow().callees(call)
    if not functions or not all(_evaluates(f, call, at, evaluated) for f in functions):
        return []
    return [a.value for i, a in enumerate(call.args) if i != at]


def _evaluates(
    function: Function,
    call: cst.Call,
    at: int,
    evaluated: Callable[[cst.Call, cst.CSTNode], bool],
) -> bool:
    """`function`'s parameter bound to `call`'s argument `at` is called, and only where every
    rank computes it whole."""
    if not isinstance(function.node, cst.FunctionDef) or call.args[at].star:
        return False
    keyword = call.args[at].keyword
    params = function.params[1:] if function.self_name is not None else function.params
    if keyword is not None:
        bound = next((p for p in params if p.name.value == keyword.value), None)
    elif any(a.keyword is not None or a.star for a in call.args[:at]):
        return False
    else:
        bound = params[at] if at < len(params) else None
    if bound is None:
        return False
    name = bound.name.value
    model_calls = [
        c
        for c in walk(function.node.body, skip_scopes=True)
        if isinstance(c, cst.Call) and calls_model(c, {name})
    ]
    return bool(model_calls) and all(evaluated(c, function.node) for c in model_calls)


def step_names(module: cst.Module, in_training_loop: Callable[[cst.CSTNode], bool]) -> set[str]:
    """The last names of what a training loop of `module` calls (`self.d_loss_fn(...)`),
    and of the functions such a call runs by another name: a closure a factory returned
    (`criterion = make_loss(...)`, `def denoise_loss` in it; flow/called.py)."""
    steps = [
        call
        for call in nodes_of(module, cst.Call)
        if isinstance(call.func, (cst.Name, cst.Attribute)) and in_training_loop(call)
    ]
    flow = view(module)
    return {name_of(call.func) for call in steps} | {
        f.name for call in steps if isinstance(call.func, cst.Name) for f in flow.callees(call)
    }
