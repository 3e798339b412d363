"""`RandomSampler(dataset)` and `SequentialSampler(dataset)`: samplers that only say "shuffle"
or "don't", as the older Hugging Face scripts pass them. The data transform replaces them with
its own sampler; anything it cannot follow keeps DP009."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst
from libcst.codemod.visitors import RemoveImportsVisitor
from libcst.metadata import PositionProvider

from dp2ddp.transforms._support.nodes import assigned_value, bare, is_false, is_simple
from dp2ddp.transforms.analysis.batch_noise import ends_with_break
from dp2ddp.transforms.data.flow import CallFlow

if TYPE_CHECKING:
    from dp2ddp.transforms.data.plan import Loader

RANDOM_SAMPLER = frozenset(
    {"torch.utils.data.RandomSampler", "torch.utils.data.sampler.RandomSampler"}
)
SEQUENTIAL_SAMPLER = frozenset(
    {"torch.utils.data.SequentialSampler", "torch.utils.data.sampler.SequentialSampler"}
)


@dataclass(frozen=True)
class OwnSampler:
    """A shuffle-only sampler given to one loader."""

    call: cst.Call  # where it is built (inline in the loader, or `x = RandomSampler(...)`)
    shuffle: bool


def own_sampler(
    flow: CallFlow, call: cst.Call, sampler: cst.BaseExpression, args: dict[str, int]
) -> OwnSampler | None:
    """`sampler=RandomSampler(dataset)` (or a name bound to it that only this loader uses),
    over the loader's own dataset, with no argument that changes what it draws."""
    built = sampler
    if isinstance(sampler, cst.Name):
        referents = flow.referents(sampler)
        if len(referents) != 1:
            return None
        uses = list(referents[0].references)
        holder = flow.parent(flow.parent(referents[0].node) or sampler)
        if (
            len(uses) != 1
            or uses[0].node is not sampler
            or (isinstance(holder, cst.Assign) and len(holder.targets) != 1)
        ):
            return None  # len(sampler), a second loader, `a = b = ...`: cannot follow
        built = assigned_value(referents[0].node, flow) or sampler
    if not isinstance(built, cst.Call) or len(built.args) != 1:
        return None  # replacement=, num_samples=, generator= change what is drawn
    if flow.matches(built.func, RANDOM_SAMPLER):
        shuffle = True
    elif flow.matches(built.func, SEQUENTIAL_SAMPLER):
        shuffle = False
    else:
        return None
    source = built.args[0]
    dataset = call.args[args["dataset"]].value
    if (
        source.star
        or (source.keyword is not None and source.keyword.value != "data_source")
        or not same_object(flow, source.value, dataset)
        or ("shuffle" in args and not is_false(call.args[args["shuffle"]].value))
    ):
        return None
    return OwnSampler(built, shuffle)


def same_object(flow: CallFlow, a: cst.BaseExpression, b: cst.BaseExpression) -> bool:
    """Two spellings of one dataset: the same simple expression, a name bound the same."""
    if not (is_simple(a) and is_simple(b)) or flow.code(bare(a)) != flow.code(bare(b)):
        return False
    if isinstance(a, cst.Name) and isinstance(b, cst.Name):
        first, second = flow.referents(a), flow.referents(b)
        return bool(first) and {id(r.node) for r in first} == {id(r.node) for r in second}
    return True


def drop_import(flow: CallFlow, func: cst.BaseExpression) -> None:
    """`from torch.utils.data import RandomSampler` goes once nothing uses it."""
    if not isinstance(func, cst.Name):
        return
    for qualified in flow.qualified_names(func) & (RANDOM_SAMPLER | SEQUENTIAL_SAMPLER):
        module, _, obj = qualified.rpartition(".")
        alias = None if func.value == obj else func.value
        RemoveImportsVisitor.remove_unused_import(flow.context, module, obj, alias)


def said_early_exit(transform: CallFlow, loader: Loader, label: str, call: cst.Call) -> None:
    """DP130 where a shuffled loader, evaluated with ddp_eval_sampler (its fixed strided
    order: the shuffle is dropped since the order changes no sum over a whole pass), is
    left before the end by a `break` of its loop (`if batch_idx + 1 == n: break`,
    yaircarmon/semisup-adv@3f05b28 robust_self_training.py:366, stop 63 v3-B): the
    original evaluated a new random subset each pass, each rank now the same first
    samples every pass."""
    for loop, _, _ in loader.loops:
        if ends_with_break(loop):
            line = transform.state.line_map(
                transform.get_metadata(PositionProvider, loop).start.line
            )
            transform.warn(
                call,
                "DP130",
                f"{label} is shuffled, and its loop at line {line} may leave before the end "
                "(`break`): ddp_eval_sampler's order is fixed, so each pass evaluates the "
                "same first samples of each rank's slice, where the original drew a new "
                "random subset each pass",
            )
            return
