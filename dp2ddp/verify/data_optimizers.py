"""Optimizers over input data, not over a model (inside the user's processes).

happen2me/genda@858cea8's data-free distillation optimises each batch of images itself
(`opt_imgs.requires_grad = True`, an Adam over `[opt_imgs]`) for a few steps through a frozen
teacher before the student's step. Each rank optimises its own share of the images, so the
image optimizer's steps differ between the runs by design, and verify, which recorded every
optimizer's step, compared them as the model's: "ranks in sync NO", "the runs optimize
different parameters", while the student's updates went uncompared (stop 62 v3-D). An
optimizer whose every tensor is a plain tensor (no `nn.Parameter`) held by no module the
program calls or wraps steps data, not a model: its steps are not recorded (stop 63 s2).
Where no such module is known yet, nothing is skipped. Decided at the optimizer's first step.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:
    from dp2ddp.verify.recorder import Recorder

_DECIDED: weakref.WeakKeyDictionary[torch.optim.Optimizer, bool] = weakref.WeakKeyDictionary()


def steps_data(recorder: Recorder, opt: torch.optim.Optimizer) -> bool:
    """`opt` optimises input data (see the module docstring): its steps are not a model's."""
    decided = _DECIDED.get(opt)
    if decided is None:
        decided = _decide(recorder, opt)
        _DECIDED[opt] = decided
    return decided


def _decide(recorder: Recorder, opt: torch.optim.Optimizer) -> bool:
    tensors = [p for g in opt.param_groups for p in g["params"] if isinstance(p, torch.Tensor)]
    if not tensors or any(isinstance(p, torch.nn.Parameter) for p in tensors):
        return False
    modules = [
        module
        for refs in (recorder.models, recorder.wrappers, recorder.unsampled)
        for ref in refs
        if isinstance(module := ref(), torch.nn.Module)
    ]
    if not modules:
        return False
    held = {id(p) for module in modules for p in module.parameters()}
    held |= {id(b) for module in modules for b in module.buffers()}
    return not any(id(p) in held for p in tensors)
