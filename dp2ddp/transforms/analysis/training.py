"""Which loops and functions train: the one home of "a loop that trains".

A loop trains when, within its own body (the functions, classes and lambdas defined in it
run at some other time), a backward pass runs (`loss.backward()`,
`torch.autograd.backward(...)`) or an optimizer steps (`optimizer.step()`,
`scaler.step(opt)`: a receiver named like an optimizer or a grad scaler). A function trains
by the same calls in its own body: a step helper, or a loss object that trains for its
caller.

Before stop 33 seven checks asked this each their own way (the review of stop 32); they now
ask here (goldens, examples and check_after_migrate unchanged), and where they differed:
- hazards' `is_training_loop`/`trains` (DP006, the batch proof, the draws): this definition.
- data's `decisions.trains` (early stopping, DP051's chunked batches, `never_trains`)
  counted any `.step()`, a scheduler's or an environment's too: a loop over a loader that
  only steps a scheduler is no training loop, its figures are an evaluation's.
- rank_zero's DP032 (`loop_exits`) and DP090 (`run_dir`) counted `.backward()` only
  (DP032 in the loop's header too), also in the lambdas and functions defined in the loop:
  a loop that steps an optimizer trains, and a `def` in a loop trains where it is called.
- hazards' `fixed_fetch` (DP091) asked a function for `.backward()` only.
- data's `imported._trains` (the `.eval()` context, DP027, evaluation factory calls)
  looked one call deep into the module's functions; it asks `trains_through` now, which
  follows the module's own functions at any depth (the batch proof's
  `_trains_through`, now here), each function read once.

A method of the loop's own class called on `self` (`loss = self._train_step(batch)`) is
followed as a function of this module is (`own_callees`, one home with the generator roles
of analysis/generator_batches.py): before, the data pass followed plain names only, so a
loop whose `with torch.no_grad():` around its bookkeeping came beside a step in such a
method was read as an evaluation, its training loader left whole (DP015: "every rank
evaluates all of it"), and every rank trained on every batch (class v2-B of stop 53,
ELEKTRONN/elektronn3@8111e5d's `Trainer._train`).

None of them follows another module's functions: a loop whose backward runs in a function
of another module (`trainer.step(batch)`) is not proved to train here. The checks that
need the other side proved (data's `never_trains`: no backward anywhere) take any call of
the program's own code as one that may train. The backward summaries of the program's
functions (hazards/backward.py, DP026) are no answer to this question: they keep a
backward only where it goes through a wrapped model's forward or a function's input, not
every backward a function runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.grad_mode import Matches, under_grad_off
from dp2ddp.transforms._support.nodes import calls_under, name_of, self_attribute

if TYPE_CHECKING:
    from dp2ddp.flow import DefUse

QualifiedNames = Callable[[cst.CSTNode], set[str]]

#: Receivers whose `.step()` is an optimizer's (an optimizer, a grad scaler).
_STEP_RECEIVER = ("opt", "scaler")


def is_backward_call(call: cst.Call, qualified_names: QualifiedNames) -> bool:
    """`x.backward(...)` or `torch.autograd.backward(...)`."""
    func = call.func
    return (isinstance(func, cst.Attribute) and func.attr.value == "backward") or (
        "torch.autograd.backward" in qualified_names(func)
    )


def is_optimizer_step(call: cst.Call) -> bool:
    """`optimizer.step()`, `self.opt_g.step()`, `scaler.step(opt)`, `optimizers[0].step()`."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "step"):
        return False
    receiver = name_of(func.value, through=(cst.Subscript,)).lower()
    return any(word in receiver for word in _STEP_RECEIVER)


def trains_call(call: cst.Call, qualified_names: QualifiedNames) -> bool:
    """`call` runs a backward pass or steps an optimizer."""
    return is_backward_call(call, qualified_names) or is_optimizer_step(call)


def loop_trains(loop: cst.For | cst.While, qualified_names: QualifiedNames) -> bool:
    """The loop's body (nested loops included, not the scopes defined in it) runs a
    backward pass or steps an optimizer."""
    return _any_trains(calls_under(loop.body, skip_scopes=True), qualified_names)


def function_trains(
    function: cst.FunctionDef | cst.Lambda, qualified_names: QualifiedNames
) -> bool:
    """The function's own body (not the functions nested in it) runs a backward pass or
    steps an optimizer: a step helper or a loss object that trains for its caller."""
    return _any_trains(calls_under(function.body, skip_scopes=True), qualified_names)


def trains_through(
    loop: cst.For | cst.While,
    qualified_names: QualifiedNames,
    runs: Callable[[cst.Call], Iterable[cst.FunctionDef | cst.Lambda]],
) -> bool:
    """The loop trains, itself or through the functions of this module its body calls
    (`runs`: the ones a call may run), at any depth of their own calls, each read once."""
    if loop_trains(loop, qualified_names):
        return True
    return _reaches_step(calls_under(loop.body), qualified_names, runs)


def function_trains_through(
    function: cst.FunctionDef,
    qualified_names: QualifiedNames,
    runs: Callable[[cst.Call], Iterable[cst.FunctionDef | cst.Lambda]],
) -> bool:
    """As trains_through, of a function's own body and the functions it calls."""
    if function_trains(function, qualified_names):
        return True
    return _reaches_step(calls_under(function.body), qualified_names, runs)


def _reaches_step(
    todo: list[cst.Call],
    qualified_names: QualifiedNames,
    runs: Callable[[cst.Call], Iterable[cst.FunctionDef | cst.Lambda]],
) -> bool:
    seen: set[int] = set()
    while todo:
        call = todo.pop()
        for function in runs(call):
            if id(function) in seen:
                continue
            seen.add(id(function))
            if function_trains(function, qualified_names):
                return True
            todo += calls_under(function.body)
    return False


def own_callees(flow: DefUse, call: cst.Call) -> Iterator[cst.FunctionDef]:
    """The module's functions `call` runs: a plain function, or a method of the caller's
    own class called on `self` (`self.model.train()` is the model's mode switch, not the
    trainer's `train` method of the same name)."""
    func = call.func
    owner = next((a for a in flow.ancestors(call) if isinstance(a, cst.ClassDef)), None)
    for callee in flow.callees(call):
        if not isinstance(callee.node, cst.FunctionDef):
            continue
        if isinstance(func, cst.Name) or (
            self_attribute(func) is not None and callee.owner is owner
        ):
            yield callee.node


def _any_trains(calls: Iterable[cst.Call], qualified_names: QualifiedNames) -> bool:
    return any(trains_call(call, qualified_names) for call in calls)


def evaluation_draw(
    draw: cst.Call,
    loop: cst.For | cst.While,
    trains: bool,
    parent: Callable[[cst.CSTNode], cst.CSTNode | None],
    matches: Matches,
) -> bool:
    """A draw in an evaluation nested in a training loop: its innermost loop (`loop`, which
    `trains` or not) is a `for` over something other than a range that steps no optimizer
    and runs no backward, and gradients are off at the draw. Its values reach no gradient:
    each rank draws for its own evaluation as DataParallel's one process drew for its own,
    so DP006's "drawn inside the training loop" is no hazard there (jesse1029/DCSN@e02b37c
    train_sr.py's validation `awgn()` noise, stop 57 v1-E); what the evaluation's figure
    decides is DP015's. A range loop may be counting steps or building a batch: not one."""
    if trains or not isinstance(loop, cst.For):
        return False
    iterated = loop.iter
    while isinstance(iterated, cst.Call):  # range(n), enumerate(trange(n)), tqdm(range(n))
        if name_of(iterated.func) in ("range", "trange") or not iterated.args:
            return False
        iterated = iterated.args[0].value
    return under_grad_off(draw, parent, matches)
