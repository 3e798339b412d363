"""A loop that trains, through the program's functions and its objects' methods
(analysis/object_steps.py). In this module: the functions and methods its body runs, at
any depth (`trainer.train_step(x, y)` of `trainer = Trainer()`). Through another module:
its body, or a function of this module it runs, calls a function of another module that
runs a backward or steps an optimizer, or such a method of another module's class on an
object built from it (`trainer = Trainer(model)`, Trainer imported from trainer.py:
`trainer.train_step(x, y)`). ProgramLoaders.stepping names them."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.transforms._support.nodes import calls_under, module_of
from dp2ddp.transforms.analysis.object_steps import step_callees, told_step
from dp2ddp.transforms.analysis.training import trains_through
from dp2ddp.transforms.data.handoffs import method_callees

if TYPE_CHECKING:
    from collections.abc import Callable

    from dp2ddp.transforms.data.flow import CallFlow


def trains_in_program(t: CallFlow, loop: cst.For) -> bool:
    """The loop runs a backward or steps an optimizer, itself, through this module's
    functions and its objects' methods (object_steps.step_callees), or through another
    module's (`steps_told`): whatever no_grad() forwards it also holds, it trains."""
    runs = partial(program_callees, t)
    return trains_through(loop, t.qualified_names, runs) or steps_told(t, loop, runs)


def program_callees(t: CallFlow, call: cst.Call) -> list[cst.FunctionDef]:
    """The functions of this module `call` may run (object_steps.step_callees)."""
    module = module_of(call, t)
    return list(step_callees(view(module), call)) if isinstance(module, cst.Module) else []


def steps_told(
    t: CallFlow, loop: cst.For, runs: Callable[[cst.Call], list[cst.FunctionDef]]
) -> bool:
    """Some call of `loop`'s body, or of the functions of this module it runs (`runs`, at
    any depth), runs another module's training step (object_steps.told_step)."""
    stepping = t.state.facts.loaders.stepping
    if not stepping:
        return False
    methods = partial(method_callees, t)
    seen: set[int] = set()
    todo = calls_under(loop.body)
    while todo:
        call = todo.pop()
        if told_step(call, t.qualified_names, methods, stepping):
            return True
        for function in runs(call):
            if id(function) not in seen:
                seen.add(id(function))
                todo += calls_under(function.body)
    return False
