"""Stop 54 x3 (v4-E and squad of round 7): rounding noise under RMSprop, Adadelta, Adagrad.

facebookresearch/fastMRI@16bfdd9 (RMSprop, biases before InstanceNorm) and
chrischute/squad@85623ad (Adadelta, 1.5e-7 on near-zero biases): verify said NOT
EQUIVALENT, "no known cause", where every gradient agreed and the updates of the biases
whose gradient is rounding noise differed. Like Adam, these optimizers divide by a running
gradient statistic, so noise moves a weight as far as a real gradient; adaptive.py derives
each one's largest step from its update rule. Here: the bound checked against torch's own
optimizers, and verify's comparison on two runs of each optimizer whose gradient streams
differ by rounding in one near-zero element (own figures, no launch)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch
from test_verify_units import _graded_pair

from dp2ddp.verify.adaptive import adaptive_bound
from dp2ddp.verify.compare import compare_updates

Factory = Callable[[list[torch.Tensor]], torch.optim.Optimizer]

OPTIMIZERS: dict[str, Factory] = {
    "rmsprop": lambda p: torch.optim.RMSprop(p, lr=1e-3),
    "rmsprop_momentum": lambda p: torch.optim.RMSprop(p, lr=1e-3, momentum=0.9),
    "rmsprop_centered": lambda p: torch.optim.RMSprop(p, lr=1e-3, centered=True),
    "adadelta": lambda p: torch.optim.Adadelta(p, lr=0.5),
    "adagrad": lambda p: torch.optim.Adagrad(p, lr=1e-2, lr_decay=0.1),
}


def _hyper(opt: torch.optim.Optimizer) -> dict[str, Any]:
    """The group's hyperparameters as verify's recorder keeps them (lists for tuples)."""
    group = opt.param_groups[0]
    return {
        k: list(v) if isinstance(v, tuple) else v
        for k, v in group.items()
        if k != "params" and (v is None or isinstance(v, bool | int | float | tuple))
    }


def _run(factory: Factory, grads: list[torch.Tensor]) -> tuple[list[torch.Tensor], dict[str, Any]]:
    p = torch.zeros(grads[0].shape, requires_grad=True)
    opt = factory([p])
    updates = []
    for g in grads:
        before = p.detach().clone()
        p.grad = g.clone()
        opt.step()
        updates.append(p.detach() - before)
    return updates, _hyper(opt)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_no_update_exceeds_half_the_bound(name: str) -> None:
    """The derivation checked against torch: whatever the gradients (noise of 1e-9 next to
    ones of 1e3, signs flipping), no update exceeds the largest step adaptive_bound is twice."""
    gen = torch.Generator().manual_seed(0)
    scale = torch.tensor([1e-9, 1e-3, 1.0, 1e3] * 4)
    grads = [torch.randn(16, generator=gen) * scale.roll(i) for i in range(6)]
    updates, hyper = _run(OPTIMIZERS[name], grads)
    for step, u in enumerate(updates, start=1):
        bound = adaptive_bound({"hyper": [hyper]}, step)
        assert bound is not None
        assert float(u.abs().max()) <= bound / 2 * (1 + 1e-6), (step, float(u.abs().max()))


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_rounding_in_a_near_zero_gradient_is_judged_on_the_gradients(
    tmp_path: Path, name: str
) -> None:
    """Two runs whose gradients differ by rounding in one near-zero element (~4e-5 relative
    to the whole gradient at most): that element's updates differ by far more than rtol, and
    pass as rounding. Adadelta's eps (1e-6, under the root) damps noise far below 1e-3: its
    figures are taken 1e5 times larger (the ratios the same)."""
    tiny, big = (1e-4, 10.0) if name == "adadelta" else (1e-9, 1e-2)
    grads = [
        torch.tensor([big, -2 * big, 3 * tiny, big]),
        torch.tensor([big, -2 * big, -2 * tiny, big]),
        torch.tensor([2 * big, -big, 1 * tiny, big]),
    ]
    noisy = [g + torch.tensor([0.0, 0.0, 10 * tiny, 0.0]) for g in grads]
    u_o, hyper = _run(OPTIMIZERS[name], grads)
    u_m, _ = _run(OPTIMIZERS[name], noisy)
    ref = max(float(u[2].abs()) for u in u_o)
    assert max(float((a[2] - b[2]).abs()) for a, b in zip(u_o, u_m, strict=True)) > 0.1 * ref
    original, migrated = _graded_pair(tmp_path, u_o, u_m, grads, noisy, hyper)
    numerics = compare_updates(original, migrated, 1e-4, 1e-8)
    assert numerics.passed, numerics.diffs
    assert numerics.rounding
    assert numerics.gradient_first_diverging_step is None
    # the same figures under an optimizer with no derived rule: the difference is real
    unknown = {"lr": hyper["lr"], "foo": 1.0}
    original, migrated = _graded_pair(tmp_path / "u", u_o, u_m, grads, noisy, unknown)
    assert not compare_updates(original, migrated, 1e-4, 1e-8).passed


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_a_difference_beyond_the_bound_still_fails(tmp_path: Path, name: str) -> None:
    """Agreeing gradients excuse no more than twice the optimizer's largest step."""
    grads = [torch.tensor([1.0, -1.0, 1.0, 1.0])]
    u_o, hyper = _run(OPTIMIZERS[name], grads)
    bound = adaptive_bound({"hyper": [hyper]}, 1)
    assert bound is not None
    u_m = [u_o[0] + torch.full((4,), 2 * bound)]
    original, migrated = _graded_pair(tmp_path, u_o, u_m, grads, grads, hyper)
    numerics = compare_updates(original, migrated, 1e-4, 1e-8)
    assert not numerics.passed and numerics.rounding == []


def test_an_unknown_rule_gets_no_bound() -> None:
    """SGD (linear in its gradient) and an optimizer whose rule is not derived: None."""
    sgd = {"lr": 0.1, "momentum": 0.0, "nesterov": False, "weight_decay": 0.0}
    assert adaptive_bound({"hyper": [sgd]}, 1) is None
    assert adaptive_bound({"hyper": [{"lr": 0.1, "foo": 1.0}]}, 1) is None
    rms = {"lr": 1e-3, "alpha": 0.99, "centered": False, "momentum": 0.0, "eps": 1e-8}
    assert adaptive_bound({"hyper": [rms, sgd]}, 1) is None  # one group without a rule
