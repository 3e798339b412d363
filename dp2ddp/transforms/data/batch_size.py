"""DataParallel's global batch size kept: each process loads its share."""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms._support.nodes import (
    bare,
    call_named,
    is_none,
    name_of,
    walk,
)
from dp2ddp.transforms.data.arguments import LoaderArguments
from dp2ddp.transforms.data.plan import (
    DEVICE_COUNT,
    EVAL_SAMPLER,
    GPU_COUNT,
    CallEdit,
    Loader,
)
from dp2ddp.transforms.data.undividable_batch import said_undividable_batch


class LoaderBatchSize(LoaderArguments):
    """batch_size=B becomes the per-rank share; B * n_gpu becomes B."""

    # -- batch size -----------------------------------------------------------------------
    def _plan_batch(self, loader: Loader, edit: CallEdit) -> None:
        index = loader.args["batch_size"]
        value = loader.call.args[index].value
        text = self.code(value)
        if is_none(value):
            self.warn(value, "DP013", "batch_size=None: each item is a whole per-process batch")
            return
        if isinstance(value, cst.Call) and name_of(value.func) == "ddp_per_rank_batch":
            return
        per_gpu = self._strip_gpu_count(value)
        if per_gpu is not None:
            edit.batch = (index, bare(per_gpu))
            self.record(value, f"batch_size {text} -> {self.code(per_gpu)} per process")
        elif any(self._is_gpu_count(n) for n in walk(value)):
            self.warn(value, "DP013", f"batch_size={text}")
        elif self.state.options.per_process_batch:
            self.record(
                value,
                f"batch_size {text} is per process now: the global batch grows with WORLD_SIZE",
            )
        else:
            self.state.helpers.add("per_rank_batch")
            edit.batch = (index, call_named("ddp_per_rank_batch", cst.Arg(value.deep_clone())))
            self.record(value, f"batch_size {text} is the global batch: split over WORLD_SIZE")
            evaluates = isinstance(edit.sampler, cst.Call) and (
                name_of(edit.sampler.func) == EVAL_SAMPLER
            )
            said_undividable_batch(self, value, trains=not evaluates)

    def _strip_gpu_count(self, expr: cst.BaseExpression) -> cst.BaseExpression | None:
        """`X * n_gpu` / `n_gpu * X` (also inside a product chain) -> `X`."""
        if not (isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply)):
            return None
        if self._is_gpu_count(expr.right):
            return expr.left.deep_clone()
        if self._is_gpu_count(expr.left):
            return expr.right.deep_clone()
        for side in ("left", "right"):
            inner = self._strip_gpu_count(getattr(expr, side))
            if inner is not None:
                return expr.deep_clone().with_changes(**{side: inner})
        return None

    def _is_gpu_count(self, node: cst.CSTNode) -> bool:
        """The node's devices: the machine's device count (or a name for it), which under
        torchrun is the number of processes a node starts. Not `len(gpus)` of a configured
        device list: a config naming 4 devices launched on 2 (or 8) processes would make
        `B * len(gpus)` -> `B` change the global batch with the launch (round 23,
        HRNet/HRNet-Image-Classification@f760c98); kept whole, that product is the global
        batch and `ddp_per_rank_batch` splits it, equal to `B` where the two counts agree."""
        if isinstance(node, cst.Call):
            if self.matches(node.func, DEVICE_COUNT):
                return True
            values = [a.value for a in node.args]
            if name_of(node.func) == "max" and len(values) == 2:
                return any(self._is_gpu_count(v) for v in values)
            return False
        return isinstance(node, (cst.Name, cst.Attribute)) and bool(GPU_COUNT.match(name_of(node)))
