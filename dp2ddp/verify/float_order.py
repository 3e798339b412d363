"""The float-order floor, measured in the original's process, and the verdict it allows.

The original runs the wrapped model over the whole batch, each rank over its share, and DDP
averages the ranks' gradients: the same arithmetic summed in another order. Where a gradient
is a cancelling sum (a bias before a loss over many outputs) the orders round apart by far
more than 1e-7 relative, and an adaptive optimizer's first steps (about lr * sign(g)) turn
that into updates that differ (qinliuliuqin/Medical-Segmentation3d-Toolkit@8a23b40: the whole
batch's gradient and the mean of its halves' 2.3e-4 apart in one bias, in one process).

Measured, not guessed: at step 1 the original keeps the wrapped model's inputs and the
gradient its output received (a hook); before the optimizer steps it runs the model again
over the whole batch and over each of the W shares, back-propagates that same output
gradient (sliced for the shares) and records, per parameter, how far the summed shares'
gradient is from the whole batch's (relative, as compare.py measures the runs' gradients).
Only where that is the same arithmetic: a single output tensor batch-first, every input a
tensor of the same batch, no norm or dropout layer training (their statistics and draws
depend on the grouping) and no random number drawn by the forward (checked: the RNG state).

The verdict it allows is float_verdict.py's (the harness side, without torch).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torch
from torch.nn.modules.batchnorm import _NormBase
from torch.nn.modules.dropout import _DropoutNd

from dp2ddp.verify.replicas import own_attributes, restore_attributes

if TYPE_CHECKING:
    from dp2ddp.verify.recorder import Recorder


class Probe:
    """Step 1's capture in the original: the model, its inputs, its output's gradient."""

    def __init__(
        self,
        native_call: Callable[..., Any],
        module: torch.nn.Module,
        args: tuple[torch.Tensor, ...],
        chunks: int,
    ) -> None:
        self.native_call = native_call
        self.module = module
        self.args = args
        self.chunks = chunks
        self.grad: torch.Tensor | None = None

    def keep(self, grad: torch.Tensor) -> None:
        self.grad = grad.detach().clone() if self.grad is None else self.grad + grad.detach()


def capture(
    recorder: Recorder,
    native_call: Callable[..., Any],
    module: torch.nn.Module,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    output: Any,
) -> None:
    """Keep step 1's first whole-batch forward of a wrapped model in the original, where the
    floor can be measured (see the module's text)."""
    chunks = recorder.options.norm_chunks
    if (
        recorder.float_probe is not None
        or recorder.world != 1
        or chunks < 2
        or recorder.events
        or kwargs
        or not isinstance(output, torch.Tensor)
        or not output.requires_grad
        or not output.dim()
        or not args
        or not all(isinstance(a, torch.Tensor) and a.dim() for a in args)
    ):
        return
    n = output.size(0)
    if n < chunks or n % chunks or any(a.size(0) != n for a in args):
        return
    if any(isinstance(m, _NormBase | _DropoutNd) and m.training for m in module.modules()):
        return
    probe = Probe(native_call, module, tuple(a.detach() for a in args), chunks)
    output.register_hook(probe.keep)  # type: ignore[no-untyped-call]
    recorder.float_probe = probe
    recorder.on_first_step = lambda: measure(recorder)


def measure(recorder: Recorder) -> None:
    """Before step 1's update: the floor per parameter name (recorder.float_floor)."""
    probe = recorder.float_probe
    if not isinstance(probe, Probe) or probe.grad is None or recorder.float_floor is not None:
        return
    recorder.float_floor = {}
    module, grad = probe.module, probe.grad
    named = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
    if not named or grad.size(0) % probe.chunks:
        return
    params: list[torch.Tensor] = [p for _, p in named]
    buffers = [b.detach().clone() for b in module.buffers()]
    attributes = own_attributes(module)  # what its re-runs set on `self` is undone
    rng = torch.get_rng_state()
    recording, recorder.recording = recorder.recording, False
    try:
        with torch.enable_grad():
            whole = _grads(probe.native_call(module, *probe.args), params, grad)
            drew = not torch.equal(torch.get_rng_state(), rng)
            size = grad.size(0) // probe.chunks
            shares = [
                _grads(
                    probe.native_call(module, *(a[i * size : (i + 1) * size] for a in probe.args)),
                    params,
                    grad[i * size : (i + 1) * size],
                )
                for i in range(probe.chunks)
            ]
    except Exception:  # noqa: BLE001  (a forward that will not run again: no floor)
        return
    finally:
        recorder.recording = recording
        restore_attributes(attributes)
        torch.set_rng_state(rng)
        with torch.no_grad():
            for b, kept in zip(module.buffers(), buffers, strict=False):
                b.copy_(kept)
    if drew:
        return
    names = recorder._param_names()
    for i, (name, p) in enumerate(named):
        summed = sum((s[i] for s in shares), torch.zeros_like(whole[i]))
        ref = float(whole[i].double().norm())
        if ref > 0:
            err = float((summed.double() - whole[i].double()).norm())
            recorder.float_floor[names.get(id(p), name)] = err / ref


def _grads(output: Any, params: list[torch.Tensor], grad: torch.Tensor) -> list[torch.Tensor]:
    if not isinstance(output, torch.Tensor) or output.shape != grad.shape:
        raise ValueError("the output is not the one captured")
    found = torch.autograd.grad(output, params, grad, allow_unused=True)
    return [
        torch.zeros_like(p) if g is None else g.detach() for g, p in zip(found, params, strict=True)
    ]
