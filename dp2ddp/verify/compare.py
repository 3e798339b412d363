"""Compare the parameter updates of the original and of DDP rank 0, step by step.

The update of a parameter at step s is (after - before) around optimizer.step(). A step
passes for a parameter when

    rms(u_migrated - u_original) <= a + rtol * rms(u_original) + 2 * eps(dtype) * rms(param)

The last term is the parameter's own rounding: an update is the difference of two stored
floats, so it cannot be more exact than the parameter's last bit. RMS rather than the worst
element: one element whose gradient is ~0 may flip sign under another summation order.
The absolute term `a` is atol, but at most ATOL_SHARE of the parameter's own update (rms,
the larger of the two runs'): what training changed is compared relative to its own size.
A fixed 1e-8 passed every update of andy-yun/pytorch-0.4-yolov3@7928dc9, whose learning
rate moves its weights by under 1e-8 a step (stop 58, v1): a migration that trained
differently would have read EQUIVALENT. Capped by the step's largest update instead (stop
59), a small tensor beside large ones (a parameter group of a small learning rate, a scale)
still passed a halved update on atol (stop 60): each tensor is judged against its own.

An update below RESOLUTION_UNITS units of its parameter's last place (rms) in both runs is
below float resolution: the rounding term is then at least half of it, so a difference of
half the update (a halved gradient) would pass as rounding. Such an update is judged on its
gradients, which the optimizer received (`unresolved`: it passes where they agree at that
step, fails where they differ); where no update of the compared steps was above resolution,
nothing training changed was compared, and the verdict is "not comparable: updates below
float resolution" (`below_resolution`), not EQUIVALENT.

The gradients the optimizer received are compared too (`rms(g_m - g_o) <= rtol * rms(g_o)`).
An adaptive optimizer (Adam and its kin, RMSprop, Adadelta, Adagrad: adaptive.py) divides by
a running gradient scale, so its first update is about `lr * sign(g)` and its later ones are
ratios of the gradients seen so far: float rounding in small gradient elements (one batch
summed in one order, two halves averaged in another) becomes an update difference of up to
`lr`, and a gradient difference hides at step 1. So for such an optimizer a parameter whose
update differs still passes when its gradients agreed at this step and every earlier one,
and the difference stays within the optimizer's own step bound (`rounding`); and the first
step at which the gradients differ is reported (`gradient_first_diverging_step`).

A gradient that is zero up to rounding in both runs (a conv bias right before BatchNorm:
BatchNorm takes the mean out, so what is left is summation noise, V8, Jungjee/RawNet) has no
relative error to compare: noise against noise. Such a gradient, at most _ROUNDING_LEVEL
units of its dtype's eps of the step's largest gradient (rms) in both runs, is not compared:
it counts as agreeing, and the report names it with its sizes (`rounding_level`).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

from dp2ddp.verify import arrays
from dp2ddp.verify.adaptive import adaptive_bound
from dp2ddp.verify.arrays import Vector
from dp2ddp.verify.records import RankRecord, Tensors

#: Hyperparameters that choose an implementation, not the maths.
_IMPLEMENTATION_KEYS = frozenset(
    {
        "foreach",
        "fused",
        "differentiable",
        "capturable",
        "maximize_foreach",
        "decoupled_weight_decay",
    }
)


@dataclass(frozen=True)
class StepDiff:
    step: int
    key: str
    name: str
    shape: tuple[int, ...]
    rel_error: float  # rms(diff) / rms(original update); inf when the original did not move
    max_abs_diff: float
    passed: bool
    #: passed because the gradients agreed and an adaptive optimizer made the difference
    rounding: bool = False
    #: passed because SGD's update of a parameter whose gradients were zero up to rounding
    #: at every step so far differs by no more than SGD can make of that noise (`sgd_bound`)
    noise: bool = False
    #: below float resolution in both runs (RESOLUTION_UNITS): judged on its gradients
    unresolved: bool = False
    #: failed only on its own absolute term, within the step's (a small update beside large
    #: ones): judged on its gradients (`_on_own_size`)
    small: bool = False


@dataclass(frozen=True)
class ScaleFit:
    """Is the migrated update a constant multiple of the original's (at one step)?"""

    ratio: float | None
    uniform: bool


@dataclass(frozen=True)
class HyperDiff:
    step: int
    optimizer: int
    group: int
    key: str
    original: Any
    migrated: Any


@dataclass
class Numerics:
    steps_compared: int = 0
    structure: list[str] = field(default_factory=list)
    initial_equal: bool = True
    initial_max_abs_diff: float = 0.0
    initial_worst: str | None = None
    diffs: list[StepDiff] = field(default_factory=list)
    first_diverging_step: int | None = None
    scale: ScaleFit = ScaleFit(None, False)
    hyper: list[HyperDiff] = field(default_factory=list)
    #: the first step whose gradients differ (None: they agree, or were not recorded), and
    #: the worst relative gradient error at each step (steps with recorded gradients)
    gradient_first_diverging_step: int | None = None
    gradient_errors: list[tuple[float, str]] = field(default_factory=list)
    #: the gradients' scale fit at that step (an adaptive optimizer's updates hide a scale)
    gradient_scale: ScaleFit = ScaleFit(None, False)
    #: name -> (step, rms of the original's gradient, of the migration's, the step's largest
    #: gradient rms): gradients zero up to rounding in both runs, not compared
    rounding_level: dict[str, tuple[int, float, float, float]] = field(default_factory=dict)
    #: per compared step: (optimizer index, its own step, its class, `path:line` of its step())
    stepped: list[tuple[int, int, str, str]] = field(default_factory=list)

    @property
    def rounding(self) -> list[StepDiff]:
        """The updates that differ only as an adaptive optimizer turns rounding into."""
        return [d for d in self.diffs if d.rounding]

    @property
    def noise(self) -> list[StepDiff]:
        """The updates that differ only as SGD moves gradients that are rounding noise."""
        return [d for d in self.diffs if d.noise]

    @property
    def unresolved(self) -> list[StepDiff]:
        """The updates below float resolution in both runs (judged on their gradients)."""
        return [d for d in self.diffs if d.unresolved]

    @property
    def below_resolution(self) -> bool:
        """No update of the compared steps was above float resolution: training moved no
        parameter by more than rounding, so the updates compared nothing."""
        return bool(self.diffs) and all(d.unresolved for d in self.diffs)

    @property
    def passed(self) -> bool:
        return (
            not self.structure
            and self.initial_equal
            and self.first_diverging_step is None
            and self.steps_compared > 0
        )

    def worst(self, limit: int = 5) -> list[StepDiff]:
        """Each parameter's worst step, worst parameters first."""
        per_param: dict[str, StepDiff] = {}
        for diff in self.diffs:
            best = per_param.get(diff.key)
            if best is None or _order(diff) > _order(best):
                per_param[diff.key] = diff
        return sorted(per_param.values(), key=_order, reverse=True)[:limit]


def _order(diff: StepDiff) -> tuple[bool, float, float]:
    rel = diff.rel_error if math.isfinite(diff.rel_error) else 1e300
    return (not diff.passed, rel, diff.max_abs_diff)


def _rms(norm: float, size: int) -> float:
    return norm / math.sqrt(size) if size else 0.0


def compare_updates(
    original: RankRecord,
    migrated: RankRecord,
    rtol: float,
    atol: float,
) -> Numerics:
    result = Numerics()
    orig_t, mig_t = original.tensors(), migrated.tensors()
    names, shapes = original.names(), original.shapes()
    _check_structure(original, migrated, result)
    _check_initial(orig_t, mig_t, names, result)
    steps = min(len(orig_t.updates), len(mig_t.updates), len(original.events), len(migrated.events))
    grads_agree: dict[str, bool] = {}  # every step so far
    #: per parameter whose gradients were rounding noise at every step so far: the sum of
    #: their rms (both runs); `real` holds the parameters that had a real gradient once
    noise_sum: dict[str, float] = {}
    real: set[str] = set()
    peak = 0.0  # the largest sgd_bound coefficient so far
    for index in range(steps):
        ev_o, ev_m = original.events[index], migrated.events[index]
        if ev_o["optimizer"] != ev_m["optimizer"] or ev_o["class"] != ev_m["class"]:
            result.structure.append(
                f"step {index + 1}: the original stepped optimizer {ev_o['optimizer']} "
                f"({ev_o['class']}), the migration optimizer {ev_m['optimizer']} ({ev_m['class']})"
            )
            break
        result.hyper += _hyper_diffs(index + 1, ev_o, ev_m)
        result.stepped.append(
            (ev_o["optimizer"], int(ev_o.get("optimizer_step", index + 1)), str(ev_o["class"]),
             str(ev_o.get("at", "")))
        )  # fmt: skip
        agree, noise = _gradients(index, orig_t, mig_t, names, rtol, result)
        if not agree:  # gradients not recorded at this step: its noise is unknown
            real.update(noise_sum)
            noise_sum.clear()
        for key, ok in agree.items():
            grads_agree[key] = grads_agree.get(key, True) and ok
            if key in noise and key not in real:
                noise_sum[key] = noise_sum.get(key, 0.0) + noise[key]
            else:
                real.add(key)
                noise_sum.pop(key, None)
        absolute = step_atol(orig_t, index, atol)
        step_diffs = _step_diffs(
            index + 1, orig_t, mig_t, index, names, shapes, rtol, absolute, result.structure
        )
        step_diffs = [_on_gradients(d, agree) if d.unresolved else d for d in step_diffs]
        step_diffs = [_on_own_size(d, orig_t, mig_t, index, agree) for d in step_diffs]
        own_step = ev_o.get("optimizer_step", index + 1)
        same_hyper = ev_o["hyper"] == ev_m["hyper"] and isinstance(own_step, int)
        bound = adaptive_bound(ev_o, own_step) if same_hyper else None
        if bound is not None:
            step_diffs = [
                dataclasses.replace(d, passed=True, rounding=True)
                if not d.passed
                and agree.get(d.key, False)
                and grads_agree[d.key]
                and d.max_abs_diff <= bound
                else d
                for d in step_diffs
            ]
        same = ev_o["hyper"] == ev_m["hyper"] and ev_o["class"] == "SGD"  # torch's, by name
        linear = sgd_bound(ev_o, index + 1) if same else None
        if linear is not None:
            peak = max(peak, linear)
            param_rms = orig_t.param_rms[index] if index < len(orig_t.param_rms) else {}
            step_diffs = [
                dataclasses.replace(d, passed=True, noise=True)
                if not d.passed
                and d.key in noise_sum
                and _update_error(orig_t, mig_t, index, d.key)
                <= absolute
                + peak * noise_sum[d.key]
                + 2 * orig_t.eps.get(d.key, 0.0) * param_rms.get(d.key, 0.0)
                else d
                for d in step_diffs
            ]
        result.diffs += step_diffs
        result.steps_compared = index + 1
        if result.first_diverging_step is None and any(not d.passed for d in step_diffs):
            result.first_diverging_step = index + 1
            result.scale = fit_scale(orig_t.updates[index], mig_t.updates[index])
    return result


#: The absolute tolerance is at most this share of the step's largest update (rms): below it,
#: an update's difference is float noise beside what the step changed, whatever its size.
ATOL_SHARE = 1e-4
#: An update whose rms is below this many units of its parameter's last place (eps(dtype) *
#: rms(param)) in both runs is below float resolution: the rounding term (2 units) is at
#: least half of it.
RESOLUTION_UNITS = 4.0


def step_atol(orig_t: Tensors, index: int, atol: float) -> float:
    """atol, capped at ATOL_SHARE of the largest update (rms) of step index+1's original."""
    largest = max((_rms_of(u) for u in orig_t.updates[index].values()), default=0.0)
    return min(atol, ATOL_SHARE * largest)


def _on_gradients(diff: StepDiff, agree: dict[str, bool]) -> StepDiff:
    """An update below float resolution, judged on its gradients at that step (they agree
    within rtol: passed; they differ: failed); kept as compared where none was recorded."""
    if diff.key not in agree:
        return diff
    return dataclasses.replace(diff, passed=agree[diff.key])


def _on_own_size(
    diff: StepDiff, orig_t: Tensors, mig_t: Tensors, index: int, agree: dict[str, bool]
) -> StepDiff:
    """An update that failed only on its own absolute term (within the step's, ATOL_SHARE of
    the step's largest update), judged on its gradients: they agree within rtol, or differ
    by no more than float rounding of the step's largest gradient (_ROUNDING_LEVEL eps of
    its rms: a sum whose terms cancel keeps that much of their size, whatever its own):
    passed; else failed, the tensor named. Without gradients: passed, as on the step's term."""
    if not diff.small or diff.passed:
        return diff
    if diff.key not in agree or agree[diff.key]:
        return dataclasses.replace(diff, passed=True)
    g_o, g_m = orig_t.grads[index][diff.key], mig_t.grads[index][diff.key]
    largest = max((_rms_of(g) for g in orig_t.grads[index].values()), default=0.0)
    error = _rms(arrays.distance(g_o.values, g_m.values), len(g_o.values))
    level = _ROUNDING_LEVEL * orig_t.eps.get(diff.key, 0.0) * largest
    return dataclasses.replace(diff, passed=error <= level)


def sgd_bound(event: dict[str, Any], steps: int) -> float | None:
    """How far SGD's updates can move apart per unit of gradient difference, summed over the
    steps so far: None for another optimizer (an adaptive one: adaptive_bound).

    SGD's update is linear in the gradients it has seen: `buf = mu * buf + (1 - dampening)
    * g`, the update `-lr * buf`, or with Nesterov `-lr * (g + mu * buf)`; so one step's
    gradient enters a later update with a coefficient of at most lr * (1 + mu) (mu <= 1).
    Where a parameter's gradients were noise at every step so far, its updates differ by at
    most that times the sum of the noise's rms over those steps (the rms of a difference is
    at most the sum of the rms). Weight decay adds wd times the parameter's own difference,
    the earlier updates' differences: a factor (1 + lr * (1 + mu) * wd) per step."""
    bound = None
    for group in event.get("hyper", []):
        lr, mu = group.get("lr"), group.get("momentum", 0.0)
        wd = group.get("weight_decay", 0.0)
        if "betas" in group or "alpha" in group or "nesterov" not in group:
            return None  # not torch's SGD (its hyperparameters name `nesterov`)
        if not all(isinstance(v, int | float) for v in (lr, mu, wd)) or not 0 <= mu <= 1:
            return None
        coefficient = abs(lr) * (1.0 + mu)
        growth = (1.0 + coefficient * abs(wd)) ** steps
        bound = max(bound or 0.0, coefficient * growth)
    return bound


def _update_error(orig_t: Tensors, mig_t: Tensors, index: int, key: str) -> float:
    """rms(u_migrated - u_original) of one parameter at step index+1."""
    u_o, u_m = orig_t.updates[index][key], mig_t.updates[index][key]
    return _rms(arrays.distance(u_o.values, u_m.values), len(u_o.values))


def rounding_note(numerics: Numerics) -> str | None:
    """The report's note for the updates passed on their gradients (`rounding`), those SGD
    moved from noise (`noise`), and the gradients not compared, zero up to rounding in both
    runs (`rounding_level`)."""
    excused = numerics.rounding
    level = _level_note(numerics.rounding_level)
    moved = _noise_note(numerics.noise)
    small = resolution_note(numerics)
    level = "; ".join(text for text in (level, moved, small) if text) or None
    if not excused:
        return level
    params = sorted({d.name for d in excused})
    worst = max(excused, key=lambda d: d.rel_error)
    grads = max((rel for rel, _ in numerics.gradient_errors), default=0.0)
    shown = ", ".join(params[:3]) + (f" and {len(params) - 3} more" if len(params) > 3 else "")
    return (
        f"adaptive optimizer: the updates of {shown} differ (up to rel. error "
        f"{worst.rel_error:.3g}, {worst.max_abs_diff:.3g} abs., within the optimizer's step "
        f"bound) where every gradient agreed with the original's (rel. error <= {grads:.3g}): "
        "dividing by a running gradient statistic (Adam's m / (sqrt(v) + eps), RMSprop's "
        "g / sqrt(v), Adadelta's, Adagrad's) turns float rounding in near-zero gradients "
        "into update differences up to the step bound, so these were judged on their gradients"
    ) + (f"; {level}" if level else "")


def resolution_note(numerics: Numerics) -> str | None:
    """The updates below float resolution (RESOLUTION_UNITS), judged on their gradients; or,
    where no update was above it, why the runs are not comparable."""
    small = [d for d in numerics.unresolved if d.passed]
    if not small:
        return None
    params = sorted({d.name for d in small})
    shown = ", ".join(params[:3]) + (f" and {len(params) - 3} more" if len(params) > 3 else "")
    units = f"{RESOLUTION_UNITS:g} units of their last place"
    if numerics.below_resolution:
        return (
            f"not comparable: updates below float resolution: every update of the "
            f"{numerics.steps_compared} compared steps ({shown}) moved its parameter by under "
            f"{units} (rms) in both runs, where rounding alone makes differences of half "
            "the update: the learning rate is too small for the updates to tell a right "
            "migration from a wrong one (their gradients agreed). Verify with a larger "
            "learning rate (or more --steps past a warm-up)"
        )
    return (
        f"the updates of {shown} were below float resolution (under {units}, rms) in "
        "both runs: judged on their gradients, which agreed"
    )


def _noise_note(moved: list[StepDiff]) -> str | None:
    """The updates SGD made of rounding noise, passed within `sgd_bound`."""
    if not moved:
        return None
    params = sorted({d.name for d in moved})
    worst = max(moved, key=lambda d: d.max_abs_diff)
    shown = ", ".join(params[:3]) + (f" and {len(params) - 3} more" if len(params) > 3 else "")
    return (
        f"SGD: the updates of {shown} differ (up to {worst.max_abs_diff:.2g} abs., rel. error "
        f"{worst.rel_error:.3g}) only as far as lr * (1 + momentum) times their gradients, "
        "zero up to rounding in both runs at every step so far, can move them: rounding "
        "noise, judged so"
    )


def _level_note(level: dict[str, tuple[int, float, float, float]]) -> str | None:
    """The gradients not compared (zero up to rounding in both runs), with their sizes."""
    if not level:
        return None
    shown = [
        f"{name} (step {step}: rms {o:.2g} original, {m:.2g} migrated, against {top:.2g})"
        for name, (step, o, m, top) in sorted(level.items())[:3]
    ]
    more = f" and {len(level) - 3} more" if len(level) > 3 else ""
    return (
        f"not comparable: the gradients of {', '.join(shown)}{more} are zero up to rounding "
        f"in both runs (below {_ROUNDING_LEVEL:g} eps of the step's largest gradient rms, "
        "e.g. a bias right before BatchNorm): their updates are rounding noise"
    )


def _gradients(
    index: int,
    orig_t: Tensors,
    mig_t: Tensors,
    names: dict[str, str],
    rtol: float,
    result: Numerics,
) -> tuple[dict[str, bool], dict[str, float]]:
    """Per parameter: did the migration's gradient at step index+1 agree with the original's
    (`rms(g_m - g_o) <= rtol * rms(g_o)`)? And for those zero up to rounding in both runs,
    rms(g_o) + rms(g_m). Records the step's worst relative error and the first step at
    which some gradient differs."""
    if index >= len(orig_t.grads) or index >= len(mig_t.grads):
        return {}, {}
    agree: dict[str, bool] = {}
    noise: dict[str, float] = {}
    worst = (0.0, "")
    largest = max((_rms_of(g) for g in orig_t.grads[index].values()), default=0.0)
    for key, g_o in orig_t.grads[index].items():
        g_m = mig_t.grads[index].get(key)
        if g_m is None or g_m.shape != g_o.shape:
            agree[key] = False
            continue
        level = _ROUNDING_LEVEL * orig_t.eps.get(key, 0.0) * largest
        if max(_rms_of(g_o), _rms_of(g_m)) <= level and level > 0:
            agree[key] = True  # noise against noise: nothing to compare
            noise[key] = _rms_of(g_o) + _rms_of(g_m)
            result.rounding_level.setdefault(
                names.get(key, key), (index + 1, _rms_of(g_o), _rms_of(g_m), largest)
            )
            continue
        err = arrays.distance(g_o.values, g_m.values)
        ref = arrays.norm(g_o.values)
        agree[key] = err <= rtol * ref
        rel = err / ref if ref > 0 else (0.0 if err == 0 else math.inf)
        if rel > worst[0]:
            worst = (rel, names.get(key, key))
    if agree:
        result.gradient_errors.append(worst)
        if result.gradient_first_diverging_step is None and not all(agree.values()):
            result.gradient_first_diverging_step = index + 1
            result.gradient_scale = fit_scale(orig_t.grads[index], mig_t.grads[index])
    return agree, noise


#: A gradient at most this many eps (of its dtype) of the step's largest gradient rms is
#: zero up to rounding: a sum of terms of the largest's size that cancel (BatchNorm's mean)
#: keeps about eps * sqrt(terms) of them.
_ROUNDING_LEVEL = 64.0


def _rms_of(vector: Vector) -> float:
    return _rms(arrays.norm(vector.values), len(vector.values))


def _check_structure(original: RankRecord, migrated: RankRecord, result: Numerics) -> None:
    o_shapes, m_shapes = original.shapes(), migrated.shapes()
    for key in sorted(set(o_shapes) | set(m_shapes)):
        if key not in m_shapes:
            result.structure.append(f"{original.names()[key]}: not optimized by the migration")
        elif key not in o_shapes:
            result.structure.append(f"{migrated.names()[key]}: optimized only by the migration")
        elif o_shapes[key] != m_shapes[key]:
            result.structure.append(
                f"{original.names()[key]}: shape {tuple(o_shapes[key])} in the original, "
                f"{tuple(m_shapes[key])} in the migration"
            )


def _check_initial(
    orig_t: Tensors, mig_t: Tensors, names: dict[str, str], result: Numerics
) -> None:
    for key, before in orig_t.init.items():
        other = mig_t.init.get(key)
        if other is None or other.shape != before.shape:
            continue
        diff = arrays.max_abs_diff(before.values, other.values)
        if diff > result.initial_max_abs_diff:
            result.initial_max_abs_diff, result.initial_worst = diff, names.get(key, key)
    result.initial_equal = result.initial_max_abs_diff == 0.0


def _step_diffs(
    step: int,
    orig_t: Tensors,
    mig_t: Tensors,
    index: int,
    names: dict[str, str],
    shapes: dict[str, list[int]],
    rtol: float,
    atol: float,
    structure: list[str],
) -> list[StepDiff]:
    diffs = []
    param_rms = orig_t.param_rms[index] if index < len(orig_t.param_rms) else {}
    for key, u_o in orig_t.updates[index].items():
        u_m = mig_t.updates[index].get(key)
        if u_m is None or u_m.shape != u_o.shape:
            continue
        size = len(u_o.values)
        err = _rms(arrays.distance(u_o.values, u_m.values), size)
        ref = _rms(arrays.norm(u_o.values), size)
        unit = orig_t.eps.get(key, 0.0) * param_rms.get(key, 0.0)  # the last place (rms)
        own = _rms(arrays.norm(u_m.values), size)
        tol = min(atol, ATOL_SHARE * max(ref, own)) + rtol * ref + 2 * unit
        small = tol < err <= atol + rtol * ref + 2 * unit
        rel = err / ref if ref > 0 else (0.0 if err == 0 else math.inf)
        max_abs = arrays.max_abs_diff(u_o.values, u_m.values)
        below = max(ref, own) < RESOLUTION_UNITS * unit
        diffs.append(
            StepDiff(step, key, names.get(key, key), tuple(shapes.get(key, u_o.shape)),
                     rel, max_abs, err <= tol, unresolved=below, small=small)
        )  # fmt: skip
    return diffs


#: A parameter whose squared update is below this fraction of the largest one carries no
#: evidence for the scale fit: a bias before BatchNorm gets float noise as gradient (the
#: normalisation cancels it), and its update is weight decay alone.
NEGLIGIBLE_UPDATE = 1e-6


def fit_scale(orig: dict[str, Vector], mig: dict[str, Vector]) -> ScaleFit:
    """Least-squares ratio c of u_migrated ~ c * u_original over all parameters, and whether
    every parameter follows it (residual < 1% and per-parameter ratios within 2%); the
    parameters with a negligible update (NEGLIGIBLE_UPDATE) are left out of the test."""
    num = den = 0.0
    pairs: list[tuple[float, float, bool]] = []  # (|u_o|^2, ratio, residual within 1%)
    for key, u_o in orig.items():
        u_m = mig.get(key)
        if u_m is None or u_m.shape != u_o.shape:
            continue
        a, b = u_o.values, u_m.values
        aa, ab = arrays.dot(a, a), arrays.dot(a, b)
        if aa == 0.0:
            continue
        num, den = num + ab, den + aa
        c = ab / aa
        norm_b = arrays.norm(b)
        close = not (norm_b > 0 and arrays.distance(arrays.scaled(a, c), b) > 1e-2 * norm_b)
        pairs.append((aa, c, close))
    if den == 0.0:
        return ScaleFit(None, False)
    ratio = num / den
    largest = max(aa for aa, _, _ in pairs)
    telling = [(c, close) for aa, c, close in pairs if aa >= NEGLIGIBLE_UPDATE * largest]
    residual_ok = all(close for _, close in telling)
    spread_ok = all(abs(c - ratio) <= 0.02 * abs(ratio) for c, _ in telling) if ratio else False
    return ScaleFit(ratio, residual_ok and spread_ok)


def _hyper_diffs(step: int, ev_o: dict[str, Any], ev_m: dict[str, Any]) -> list[HyperDiff]:
    diffs = []
    for group, (h_o, h_m) in enumerate(zip(ev_o["hyper"], ev_m["hyper"], strict=False)):
        for key in sorted(set(h_o) & set(h_m) - _IMPLEMENTATION_KEYS):
            if not _same(h_o[key], h_m[key]):
                diffs.append(HyperDiff(step, ev_o["optimizer"], group, key, h_o[key], h_m[key]))
    return diffs


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=0.0)
    return bool(a == b)


def rank_sync(ranks: list[RankRecord], steps: int) -> tuple[bool, str]:
    """Did every rank hold bitwise the same parameters as rank 0 after each step?"""
    if len(ranks) < 2:
        return True, "one process"
    reference = ranks[0].events
    for step in range(steps):
        for rank in ranks[1:]:
            if step >= len(rank.events) or step >= len(reference):
                continue
            mine, ref = rank.events[step]["param_hashes"], reference[step]["param_hashes"]
            for key, digest in ref.items():
                if mine.get(key) != digest:
                    name = ranks[0].names().get(key, key)
                    return False, (
                        f"after step {step + 1}, rank {rank.rank}'s {name} differs from rank 0's"
                    )
    return True, f"all {len(ranks)} ranks held identical parameters after every step"


@dataclass(frozen=True)
class NonFinite:
    """The first optimizer step after which each run held NaN or inf parameters."""

    original: int | None
    migrated: int | None
    first_diverging_step: int | None

    @property
    def comparable_failure(self) -> bool:
        """Both runs went non-finite at the same step, and every earlier step agreed: the
        runs cannot be compared (exit 2), which is no finding against the migration."""
        return (
            self.original is not None
            and self.original == self.migrated
            and (self.first_diverging_step is None or self.first_diverging_step >= self.original)
        )


def first_nonfinite(events: list[dict[str, Any]]) -> int | None:
    for number, event in enumerate(events, start=1):
        if event.get("finite") is False:
            return int(event.get("index", number))
    return None


def nonfinite(
    original: list[dict[str, Any]],
    migrated: list[dict[str, Any]],
    first_diverging_step: int | None,
) -> NonFinite | None:
    """How the runs went non-finite, if either did (None: both stayed finite)."""
    o, m = first_nonfinite(original), first_nonfinite(migrated)
    if o is None and m is None:
        return None
    return NonFinite(o, m, first_diverging_step)
