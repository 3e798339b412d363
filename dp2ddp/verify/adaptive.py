"""The largest step of an optimizer that divides by a running gradient statistic.

Where two runs' gradients agree, such an optimizer can still put their updates far apart:
a gradient that is rounding noise (a bias right before a norm layer, whose gradient the
norm takes out) is divided by its own running size, so noise of 1e-9 moves the weight as
far as a real gradient would (chrischute/squad@85623ad under Adadelta, facebookresearch/
fastMRI@16bfdd9 under RMSprop: biases before InstanceNorm). What bounds the difference is
the optimizer's own largest step, whatever the gradient: two updates differ by at most twice
that. Derived per optimizer from torch's update rule (the state starts at zero; weight decay
is added to the gradient before the statistic, so it is bounded alike):

- Adam and its kin (`betas`): m_hat / sqrt(v_hat) <= max(1, (1 - beta1) / sqrt(1 - beta2)).
- RMSprop (`alpha`, `centered`): v_t = alpha v + (1 - alpha) g^2 >= (1 - alpha) g^2, so
  |g / sqrt(v)| <= 1 / sqrt(1 - alpha). Centered, the denominator is sqrt(v - a^2), a the
  running mean; with the running weights w (sum 1 - alpha^t) Cauchy-Schwarz gives a^2 <= (1
  - alpha^t) v, so v - a^2 >= alpha^t (1 - alpha) g^2. Momentum mu sums the last t such
  ratios: a factor sum(mu^k, k < t).
- Adadelta (`rho`): |g / sqrt(v + eps)| <= 1 / sqrt(1 - rho), so the step delta_t is at most
  sqrt((u + eps) / (1 - rho)) with u the running square of the steps, which grows at most
  as u_t <= (1 + rho) u + eps: a bound that depends on the step count.
- Adagrad (`lr_decay`, `initial_accumulator_value`): the sum of squares holds g^2, so
  |g / sqrt(sum)| <= 1 and the decayed rate is at most lr.

None for an optimizer none of these rules fits (SGD's update is linear in its gradient:
nothing to excuse, compare.sgd_bound)."""

from __future__ import annotations

import math
from typing import Any


def adaptive_bound(event: dict[str, Any], steps: int) -> float | None:
    """Twice the largest step of the event's optimizer at its step `steps` (the optimizer's
    own count, from 1), over its parameter groups; None where a group fits no rule."""
    bound = None
    for group in event.get("hyper", []):
        step = _largest_step(group, max(steps, 1))
        if step is None:
            return None
        bound = max(bound or 0.0, 2.0 * step)
    return bound


def _num(*values: Any) -> bool:
    return all(isinstance(v, int | float) and math.isfinite(v) for v in values)


def _largest_step(group: dict[str, Any], steps: int) -> float | None:
    rate = group.get("lr")
    if not isinstance(rate, int | float) or not math.isfinite(rate):
        return None
    lr = abs(float(rate))
    if "betas" in group:
        betas = group["betas"]
        if not isinstance(betas, list) or len(betas) != 2 or not _num(*betas):
            return None
        b1, b2 = betas
        if not b2 < 1:
            return None
        return lr * max(1.0, (1.0 - float(b1)) / math.sqrt(1.0 - float(b2)))
    if "alpha" in group and "centered" in group:
        return _rmsprop(lr, group, steps)
    if "rho" in group:
        return _adadelta(lr, group, steps)
    if "lr_decay" in group and "initial_accumulator_value" in group:
        decay, start = group["lr_decay"], group["initial_accumulator_value"]
        if not _num(decay, start) or decay < 0 or start < 0:
            return None
        return lr
    return None


def _rmsprop(lr: float, group: dict[str, Any], steps: int) -> float | None:
    if not _num(group["alpha"], group.get("momentum", 0.0)):
        return None
    alpha, mu = float(group["alpha"]), float(group.get("momentum", 0.0))
    if not 0 < alpha < 1 or not 0 <= mu <= 1:
        return None
    ratio = 1.0 / math.sqrt(1.0 - alpha)
    if group["centered"]:
        ratio /= math.sqrt(alpha**steps)
    return lr * ratio * sum(mu**k for k in range(steps))


def _adadelta(lr: float, group: dict[str, Any], steps: int) -> float | None:
    if not _num(group["rho"], group.get("eps")):
        return None
    rho, eps = float(group["rho"]), float(group["eps"])
    if not 0 <= rho < 1 or not eps > 0:
        return None
    running = 0.0  # the bound on the running square of the steps
    delta = 0.0
    for _ in range(steps):
        delta = math.sqrt((running + eps) / (1.0 - rho))
        running = (1.0 + rho) * running + eps
    return lr * delta
