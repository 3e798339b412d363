"""Which terms of a wrap's condition ask about GPUs (whether there is one, how many), and the
condition without them: model_wrap drops such guards, since under DDP every process wraps
(docs/design.md: a guard decided whether to wrap on several GPUs, not what to train)."""

from __future__ import annotations

import re

import libcst as cst

from dp2ddp.flow import DefUse
from dp2ddp.transforms._support.nodes import code_of

_GUARD = re.compile(
    r"device_count|n_?gpus?|num_?gpus?|gpus?\b|gpu|cuda|parallel|multi|is_available|device_ids",
    re.IGNORECASE,
)
_NOT_A_GUARD = re.compile(r"distributed|local_rank|ddp|world_size|\brank\b", re.IGNORECASE)
#: A guard on how many GPUs there are (the rest of _GUARD asks whether there is one).
_COUNT_GUARD = re.compile(
    r"device_count\(\)\s*(>\s*1|>=\s*2|!=\s*1)|n_?gpus?|num_?gpus?|gpu_ids|device_ids|parallel"
    r"|multi|len\(",
    re.IGNORECASE,
)


def is_device_term(term: str) -> bool:
    """Does this term of a wrap condition ask about GPUs (whether there is one, how many)?"""
    return bool(_GUARD.search(term)) and not _NOT_A_GUARD.search(term)


def drop_device_terms(
    test: cst.BaseExpression, dropped: list[str]
) -> cst.BaseExpression | bool | None:
    """The wrap condition without its device terms (appended to `dropped`, as spelled).

    True: nothing else decides the wrap (only device terms, or `<device> or ...`: DDP
    wraps on every process wherever the original wrapped on GPUs). An expression: the
    terms that still decide it, in their `and`/`or`/`not` (`opt.isTrain and not opt.fp16`).
    None: the device terms cannot be taken out without changing what the rest means
    (`not (opt.isTrain and use_cuda)`). A device term under `not` (`not args.no_cuda`)
    is a device term like any other: its polarity is the name's business, and the whole
    term is dropped.
    """
    if isinstance(test, cst.BooleanOperation):
        left = drop_device_terms(test.left, dropped)
        right = drop_device_terms(test.right, dropped)
        if left is None or right is None:
            return None
        if isinstance(test.operator, cst.Or) and (left is True or right is True):
            return True
        if left is True:
            return right
        if right is True:
            return left
        if left is test.left and right is test.right:
            return test
        return test.with_changes(left=left, right=right)
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = drop_device_terms(test.expression, dropped)
        if inner is True or inner is test.expression:
            return True if inner is True else test
        return None
    term = code_of(test)
    if is_device_term(term):
        dropped.append(term)
        return True
    return test


#: A count compared with "none" (`len(gpu_ids) > 0`, `n_gpu >= 1`): whether there is a GPU.
_ONE_IS_ENOUGH = re.compile(r"(>\s*0|>=\s*1|!=\s*0)\s*$")


def counts_devices(term: str) -> bool:
    """Does this device term ask how many GPUs there are (a count guard), not whether one is?

    A count compared with zero asks whether there is one (junyanz/BicycleGAN@40b9d52's
    init_net: `if len(gpu_ids) > 0: assert(torch.cuda.is_available()); net.to(gpu_ids[0]);
    net = DataParallel(net, gpu_ids)`, with `--gpu_ids -1` its CPU mode): a device guard,
    whose other lines stay under it. Taken for a count guard, its body was kept
    unconditionally and the CPU mode asserted CUDA on every rank (stop 45's v2-C)."""
    if _ONE_IS_ENOUGH.search(term):
        return False
    return bool(_COUNT_GUARD.search(term))


def wrapped_flag(test: cst.BaseExpression, flow: DefUse) -> bool:
    """`test` is a name (or `not` one) the function binds only to True or False, at least
    once under an `if` that asks no device question (`data_parallel_flag = True` under
    `if hasattr(model, "module"):`): whether the model came in wrapped, a fact of the
    program, not of the GPUs, whatever its name says (round 30, mit-han-lab/haq@8228d12:
    `if data_parallel_flag: model = nn.DataParallel(model)` re-wrapped a model that came in
    wrapped; taken for a device guard, the wrap was made unconditional and a model not yet
    wrapped became DDP(DDP(model)), its checkpoint keys `module.module.`, unsaid)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test = test.expression
    if not isinstance(test, cst.Name) or flow.parent(test) is None:
        return False
    bound = flow.definitions(test)
    if not bound or not all(
        d.kind == "assign" and isinstance(d.value, cst.Name) and d.value.value in ("True", "False")
        for d in bound
    ):
        return False
    for definition in bound:
        for above in flow.ancestors(definition.statement):
            if isinstance(above, cst.If) and (
                not is_device_term(code_of(above.test)) or _wrap_test(above.test)
            ):
                return True
            if isinstance(above, (cst.FunctionDef, cst.Module)):
                break
    return False


def _wrap_test(test: cst.BaseExpression) -> bool:
    """`isinstance(m, nn.DataParallel)` or `hasattr(m, "module")`: whether a model is
    wrapped, not whether there are GPUs."""
    if not isinstance(test, cst.Call) or not isinstance(test.func, cst.Name):
        return False
    args = [a.value for a in test.args]
    if test.func.value == "isinstance" and len(args) == 2:
        return "DataParallel" in code_of(args[1])
    if test.func.value == "hasattr" and len(args) == 2:
        return isinstance(args[1], cst.SimpleString) and args[1].value[1:-1] == "module"
    return False
