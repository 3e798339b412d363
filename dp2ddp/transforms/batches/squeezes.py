"""A squeeze with no dim of a wrapped model's output given this rank's part (DP095).

DataParallel gathered its replicas' outputs: the code after the model call saw the whole
batch, and `torch.squeeze(out)` kept the batch dim wherever the batch held more than one
sample. A rank's part may hold one (the last batch of a sharded loader: 6 test pairs in
batches of 4 leave each of 2 ranks batches of 2 and 1), and the squeeze then drops its
batch dim: JiaRenChang/PSMNet@87ac909's test, `output = torch.squeeze(output3)`, then
`output[mask]`, raised IndexError on both ranks (class P2 of docs/real-world.md).

What is read: `torch.squeeze(x)` / `x.squeeze()` with no dim, x the output of a wrapped
model's call through names, unpacking and methods that keep its dims (`.data`,
`.cpu()`, `.detach()`, `.float()`...). The batch that call is given is followed back
(dp2ddp/flow) to the loaders the data pass sharded (`batch_size=ddp_per_rank_batch(B)`):

* every such loader's global B a literal greater than 1: the squeeze keeps the batch dim,
  `ddp_squeeze(x)` (templates/helpers/squeeze.py.j2: every size-1 dim but the wrap's dim),
  the same as the original's wherever a rank's batch holds more than one sample. It
  differs only where the original's own batch held one sample (the last one when
  len(dataset) % B == 1), whose batch dim the original dropped;
* B is 1 for every one: left as written (the original dropped the batch dim too);
* B not a literal, loaders of both kinds, or a batch split by this pass (its global size
  is not read here): DP095 at the squeeze, naming the call, the model and what happens.

A squeeze of anything else (an index or a view of the output first, a loss) is not read.
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.flow import DefUse, view
from dp2ddp.flow import origins as flow_origins
from dp2ddp.transforms._support.nodes import ModuleNodes, call_named, calls_model, name_of
from dp2ddp.transforms.batches.loops import PER_RANK
from dp2ddp.transforms.batches.positions import BatchPositions

#: The helper that keeps the batch dim (templates/helpers/squeeze.py.j2).
SQUEEZE = "ddp_squeeze"
#: Methods and attributes that keep a tensor's dims (the batch stays dim 0).
_KEEPS = frozenset(
    {"data", "cpu", "cuda", "detach", "float", "double", "half", "clone", "contiguous"}
    | {"to", "numpy", "sigmoid", "exp", "abs", "relu", "tanh", "type"}
)
#: How many bindings back the output is followed.
_HOPS = 6


class BatchSqueezes(BatchPositions):
    """DP095 and ddp_squeeze: see the module docstring."""

    def _keep_batch_dims(self, nodes: ModuleNodes) -> None:
        module = self._module
        if module is None or self._dim is None or not self._models:
            return
        flow: DefUse | None = None
        for call in nodes.of(cst.Call):
            squeezed = self._squeezed(call)
            if squeezed is None or SQUEEZE in self.code(call):
                continue
            flow = flow or view(module)
            model = self._output_of(flow, squeezed, _HOPS)
            if model is None:
                continue
            sizes, split = self._global_sizes(flow, model)
            if not sizes and not split:
                continue  # the model gets the whole batch: the original's squeeze
            if not split and sizes == {"1"}:
                continue  # a global batch of 1: the original dropped its batch dim too
            if not split and all(s.isdigit() and int(s) > 1 for s in sizes):
                if call not in self._swap:
                    args = [cst.Arg(squeezed.deep_clone())]
                    if self._dim:
                        args.append(cst.Arg(cst.Integer(str(self._dim))))
                    self._swap[call] = call_named(SQUEEZE, *args)
                    self.state.helpers.add("squeeze")
                    self.record(
                        call,
                        f"{self.code(call)}: a rank's part of a batch of "
                        f"{' / '.join(sorted(sizes))} may hold one sample; the batch dim "
                        f"is kept ({SQUEEZE}), as DataParallel's gathered output kept it",
                    )
                continue
            given = " / ".join(sorted(sizes)) if sizes else "one this pass splits"
            self.warn(
                call,
                "DP095",
                f"{self.code(call)} squeezes every size-1 dim of {self.code(model)}'s output, "
                f"whose batch is this rank's part of a batch of {given}: where that part "
                f"holds one sample the batch dim is dropped too (DataParallel's gathered "
                f"output kept it), and the code after it reads another shape; not proved "
                f"the global batch is above 1 here: give squeeze the dims it means",
            )

    def _squeezed(self, call: cst.Call) -> cst.BaseExpression | None:
        """x of `torch.squeeze(x)` / `x.squeeze()` given no dim."""
        if name_of(call.func) != "squeeze":
            return None
        func = call.func
        if self.matches(func, frozenset({"torch.squeeze"})):
            given = [a for a in call.args if a.keyword is None]
            if len(call.args) == 1 and len(given) == 1 and not given[0].star:
                return given[0].value
            return None
        if isinstance(func, cst.Attribute) and not call.args:
            if view(self._module).imported_root(func.value):  # type: ignore[arg-type]
                return None  # `np.squeeze`-like spelled on a module
            return func.value
        return None

    def _output_of(self, flow: DefUse, expr: cst.BaseExpression, hops: int) -> cst.Call | None:
        """The wrapped model's call `expr` is the output of, through names, unpacking and
        methods that keep the dims; None where it is not (or not only) that."""
        while True:
            if isinstance(expr, cst.Call) and calls_model(expr, self._models):
                return expr
            if (
                isinstance(expr, cst.Call)
                and isinstance(expr.func, cst.Attribute)
                and expr.func.attr.value in _KEEPS
            ):
                expr = expr.func.value
            elif isinstance(expr, cst.Attribute) and expr.attr.value in _KEEPS:
                expr = expr.value
            else:
                break
        if not isinstance(expr, cst.Name) or hops <= 0:
            return None
        found = flow.reaching(expr)
        calls: set[cst.Call] = set()
        for definition in found:
            if definition.kind != "assign" or definition.value is None:
                return None
            value = definition.value
            if definition.element and not (
                isinstance(value, cst.Call) and calls_model(value, self._models)
            ):
                return None  # an element of something else than the output's tuple
            model = self._output_of(flow, value, hops - 1)
            if model is None:
                return None
            calls.add(model)
        return next(iter(calls)) if len(calls) == 1 else None

    def _global_sizes(self, flow: DefUse, model: cst.Call) -> tuple[set[str], bool]:
        """The global batch sizes of the sharded loaders the call's batch comes from
        (their `ddp_per_rank_batch(B)`'s B), and whether a split on the way (this pass's
        or written before) gives it a rank's part of a size not read here."""
        sizes: set[str] = set()
        split = False
        for arg in model.args:
            for origin in flow_origins(flow, arg.value, lambda c: calls_model(c, self._models)):
                if origin.selects:
                    continue
                loaders = {
                    c
                    for step in origin.path
                    if isinstance(step.node, (cst.Name, cst.Attribute, cst.Call))
                    for c, _ in self._resolve(step.node, self._loader_calls, 0)
                }
                for loader in loaders:
                    size = _per_rank_size(loader)
                    if size is not None:
                        sizes.add(self.code(size))
                if not loaders and self._on_split(flow, origin):
                    split = True
        return sizes, split


def _per_rank_size(loader: cst.Call) -> cst.BaseExpression | None:
    """B of the loader's `batch_size=ddp_per_rank_batch(B)` (the data pass sharded it)."""
    for arg in loader.args:
        if arg.keyword is not None and arg.keyword.value == "batch_size":
            value = arg.value
            if isinstance(value, cst.Call) and name_of(value.func) == PER_RANK and value.args:
                return value.args[0].value
    return None
