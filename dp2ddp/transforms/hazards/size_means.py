"""A mean loss divided again by the size of the rank's batch: the whole batch's size, or DP126.

Holmeyoung/crnn-pytorch@dc2f21a train.py (stop 50, v2-A): `criterion = CTCLoss()` (a mean
over the batch), then in `train()` `batch_size = cpu_images.size(0)` and `cost =
criterion(preds, text, preds_size, length) / batch_size`. DataParallel computed it once on
the gathered outputs: the whole batch's mean over the whole batch's size. Under DDP each rank
takes the mean of its share and divides it by its share's size; DDP averages the ranks, so
every gradient is WORLD_SIZE times DataParallel's (the mean did not shrink with the share, the
divisor did). Nothing failed: the printed loss doubled and RMSprop hid most of the step.

Found in a scope that may train, beside hazards.count_means (its scopes, its reach of the
loss, its proof that every rank divides as often): a division `M / N` whose value reaches
what the scope returns or backpropagates, `M` a mean over the batch, `N` a size of this
rank's batch.

* `M`: a call of a torch.nn loss object averaging over the batch (every construction the
  callee may hold, through the def-use view: analysis/held_objects.py), a torch.nn.functional
  loss with its default or `reduction='mean'`, `x.mean()` / `torch.mean(x)` over every
  element; names whose every binding is one, their sums and differences, constant factors.
* `N`: `x.size(0)`, `x.size()[0]`, `x.shape[0]` or `len(x)` (through casts and names), `x`
  coming (flow.origins) only from an element of a DataLoader's iteration, or from the
  wrapped model's output: under DDP both are this rank's share of DataParallel's batch (the
  data pass shards a training loader; a batch kept whole is cut at the model's call). The
  walk follows the batch through what keeps its rows (`Variable(x, flag)`, `.to(device)`,
  `torch.as_tensor(x)`: flow/carriers.py, their other arguments only shaping it) and stops
  at a loader's construction, a program's loader factory included: liucong3/
  audio_classification@08575b2 (round 22) built its loader with `loader.get(args, path)`
  in another module, and the walk went on into `args` (argparse's value, no batch), so the
  proof failed and `cross_entropy(...) / batch_size` doubled every update, unsaid.
  Where the batch reaches `x` beside a source not proved a share (a library's call the
  walk does not know keeps the rows, `torch.squeeze(x, 1)`; a factory's loader left whole,
  `ddp_shard=False`), DP126 says so with that source's flow: the size may be the share's.

`N` may also be the size of a parameter of the function the division is in (not its
`self`): FDU-VTS/crowd-count@3022ad0 crowdcount/utils/loss.py (stop 59, v1-A), `AVGLoss.
__call__(self, output, ground_truth)` returns `loss / (2 * batch)` with `batch =
len(output)`, the object handed to the training function of another module that calls it
with the wrapped model's output: the printed loss doubled under torchrun and no warning said
why. The callers are not followed, so that is said (DP126), never rewritten.

Rewritten where every rank reaches the division as often (count_means' proof): `N` becomes
`ddp_global_count(N)` (templates/helpers/global_count.py.j2), the ranks' sizes summed, the
global batch's: each rank's loss is its share's mean over the whole batch's size and DDP's
average is DataParallel's update (exact for equal shares; the last, uneven batch is averaged
as every mean loss is). Elsewhere DP126, naming the division and why it was left.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import Origin, origins, view
from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms._support.grad_mode import under_grad_off
from dp2ddp.transforms._support.names import DATALOADER, SHARD_FLAG
from dp2ddp.transforms._support.nodes import method_class, nodes_of
from dp2ddp.transforms.analysis.held_objects import held
from dp2ddp.transforms.hazards.batch_terms import BatchGiven
from dp2ddp.transforms.hazards.masked_means import _MEAN_CLASSES

if TYPE_CHECKING:
    from dp2ddp.transforms.hazards.count_means import CountMeans

#: The inserted call (templates/helpers/global_count.py.j2).
GLOBAL_COUNT = "ddp_global_count"
#: torch.nn losses whose default reduction averages over the batch (and its elements).
_MEAN_OBJECTS = _MEAN_CLASSES | frozenset(
    (
        "CTCLoss KLDivLoss MultiLabelSoftMarginLoss MultiMarginLoss MultiLabelMarginLoss "
        "MarginRankingLoss CosineEmbeddingLoss HingeEmbeddingLoss TripletMarginLoss"
    ).split()
)
#: torch.nn.functional losses whose default reduction averages over the batch.
_MEAN_FUNCTIONS = frozenset(
    f"torch.nn.functional.{name}"
    for name in (
        "cross_entropy nll_loss mse_loss l1_loss smooth_l1_loss huber_loss binary_cross_entropy "
        "binary_cross_entropy_with_logits ctc_loss kl_div soft_margin_loss "
        "multilabel_soft_margin_loss margin_ranking_loss cosine_embedding_loss "
        "triplet_margin_loss poisson_nll_loss gaussian_nll_loss"
    ).split()
)
#: Calls that keep a size a size (casts).
_SIZE_KEEPS = frozenset({"float", "int", "double", "long", "item", "to", "type_as"})
_Assigned = dict[str, list[cst.BaseExpression]]


def _literal(node: cst.BaseExpression, value: object) -> bool:
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value == value
    if isinstance(node, cst.Name):
        return node.value == str(value)
    return False


def _zero(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Integer) and node.value == "0"


class SizeMeans:
    """Whether a division is a mean over the batch divided by the rank's batch size."""

    def __init__(self, transform: MigrationTransform, module: cst.Module) -> None:
        self.t = transform
        self._module = module
        self._given: BatchGiven | None = None
        self._built: frozenset[int] | None = None
        #: The parameters the size under check comes from (`_share`): a caller's value.
        self._handed: list[str] = []
        #: A source of the size under check not proved this rank's share, beside one that
        #: is (`_share`): the size may be the share's; said with its flow.
        self._unproved: Origin | None = None
        self._function: cst.FunctionDef | None = None

    def check(
        self,
        owner: CountMeans,
        node: cst.BinaryOperation,
        parts: tuple[cst.BaseExpression, cst.BaseExpression],
        assigned: _Assigned,
        reaching: set[str],
        function: cst.FunctionDef | None,
    ) -> bool:
        """Whether `node` (`numerator / count`, `parts`) is a mean over the batch divided by
        a size of this rank's batch; one reaching the loss is rewritten where every rank
        reaches it as often (`owner.totals`), else said (DP126)."""
        numerator, count = parts
        self._handed, self._unproved, self._function = [], None, function
        if not (self._size(count, assigned, 0) and self._mean(numerator, assigned, 0)):
            return False
        if not owner._reaches(node, reaching) or under_grad_off(
            node, self.t.parent, self.t.matches
        ):
            return True
        division, shown = self.t.code(node).strip().splitlines()[0][:80], self.t.code(count)
        if self._handed:
            self.t.warn(
                count,
                "DP126",
                f"{division}: a mean over the batch divided by {shown}, the size of "
                f"`{self._handed[0]}`, which a caller hands in: where a caller hands this "
                "rank's share (the wrapped model's output, a batch of a sharded loader), each "
                "gradient is WORLD_SIZE times DataParallel's. Not rewritten: the callers were "
                "not followed",
            )
            return True
        if self._unproved is not None:
            flow = self._unproved.flow(self.t.input_position)
            self.t.warn(
                count,
                "DP126",
                f"{division}: a mean over the batch divided by {shown}: this rank's batch "
                f"reaches it, and so does a source not proved to be this rank's share ({flow}): "
                "where it is the share's size, each gradient is WORLD_SIZE times "
                "DataParallel's. Not rewritten: that it is the share's size was not proved",
            )
            return True
        if owner._unreached(node, function) is None:
            owner.totals.add(node)
            self.t.state.helpers.add("global_count")
            self.t.record(
                node,
                f"{division}: the mean is divided by the whole batch's size "
                f"({GLOBAL_COUNT}({shown}): summed over the ranks), as DataParallel divided it",
            )
        else:
            self.t.warn(
                count,
                "DP126",
                f"{division}: a mean over the batch divided by {shown}, this rank's share of "
                "the batch's size: each gradient is WORLD_SIZE times DataParallel's. Not "
                "rewritten: that every rank divides as often was not proved",
            )
        return True

    # -- the mean -------------------------------------------------------------------------
    def _mean(self, node: cst.BaseExpression, assigned: _Assigned, depth: int) -> bool:
        if depth > 6:
            return False
        if isinstance(node, cst.Name):
            bound = assigned.get(node.value, [])
            return bool(bound) and all(self._mean(v, assigned, depth + 1) for v in bound)
        if isinstance(node, cst.BinaryOperation):
            if isinstance(node.operator, (cst.Add, cst.Subtract)):
                return self._mean(node.left, assigned, depth + 1) and self._mean(
                    node.right, assigned, depth + 1
                )
            if isinstance(node.operator, cst.Multiply):
                return any(
                    isinstance(a, (cst.Integer, cst.Float)) and self._mean(b, assigned, depth + 1)
                    for a, b in ((node.left, node.right), (node.right, node.left))
                )
            return False
        if not isinstance(node, cst.Call):
            return False
        names = self.t.qualified_names(node.func)
        keywords = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        if names & _MEAN_FUNCTIONS:
            reduction = keywords.get("reduction")
            return (reduction is None or _literal(reduction, "mean")) and not (
                {"size_average", "reduce"} & keywords.keys()
            )
        method = node.func.attr.value if isinstance(node.func, cst.Attribute) else ""
        if method == "mean" or names & {"torch.mean"}:
            positional = [a for a in node.args if a.keyword is None]
            return len(positional) == (0 if method == "mean" else 1) and "dim" not in keywords
        return self._mean_object(node.func)

    def _mean_object(self, func: cst.BaseExpression) -> bool:
        """The callee holds only torch.nn loss objects built here averaging over the batch."""
        if self._built is None:
            self._built = frozenset(
                id(call)
                for call in nodes_of(self._module, cst.Call)
                if _mean_construction(call, self.t.qualified_names)
            )
        if not self._built:
            return False
        found = held(self._module)(func)
        return (
            found.complete
            and bool(found.sources)
            and all(id(c) in self._built for c in found.sources)
        )

    # -- the size -------------------------------------------------------------------------
    def _size(self, node: cst.BaseExpression, assigned: _Assigned, depth: int) -> bool:
        if depth > 6:
            return False
        if isinstance(node, cst.Name):
            bound = assigned.get(node.value, [])
            return bool(bound) and all(self._size(v, assigned, depth + 1) for v in bound)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
            # `2 * batch`: a constant factor keeps the size this rank's share
            return any(
                isinstance(a, (cst.Integer, cst.Float)) and self._size(b, assigned, depth + 1)
                for a, b in ((node.left, node.right), (node.right, node.left))
            )
        if isinstance(node, cst.Subscript) and len(node.slice) == 1:
            index = node.slice[0].slice
            value = node.value
            if not (isinstance(index, cst.Index) and _zero(index.value)):
                return False
            if isinstance(value, cst.Attribute) and value.attr.value == "shape":
                return self._share(value.value)
            if (
                isinstance(value, cst.Call)
                and isinstance(value.func, cst.Attribute)
                and value.func.attr.value == "size"
                and not value.args
            ):
                return self._share(value.func.value)
            return False
        if not isinstance(node, cst.Call):
            return False
        args = [a.value for a in node.args if a.keyword is None]
        if isinstance(node.func, cst.Name) and node.func.value in ("len", "float", "int"):
            if len(args) != 1:
                return False
            if node.func.value == "len":
                return self._share(args[0])
            return self._size(args[0], assigned, depth + 1)
        if isinstance(node.func, cst.Attribute):
            method = node.func.attr.value
            if method == "size" and len(node.args) == 1 and args and _zero(args[0]):
                return self._share(node.func.value)
            if method in _SIZE_KEEPS:
                return self._size(node.func.value, assigned, depth + 1)
        return False

    def _own_parameter(self, node: cst.CSTNode) -> bool:
        """`node` is a parameter of the function the division is in, not its `self`: what
        a caller of that function hands in."""
        function = self._function
        if function is None or not isinstance(node, cst.Param):
            return False
        params = [*function.params.posonly_params, *function.params.params]
        params += [*function.params.kwonly_params]
        if method_class(function, self.t) is not None and params and params[0] is node:
            return False
        return any(p is node for p in params)

    @property
    def _made(self) -> frozenset[str]:
        """Other modules' functions returning a loader they shard (LoaderExport): a loop
        here over what a call returns takes this rank's share (round 22: `lib.get(4, 8)`)."""
        exported = self.t.state.loaders.exported
        return frozenset(f"{e.module}.{e.name}" for e in exported if e.function and e.module)

    def _share(self, value: cst.BaseExpression) -> bool:
        """`value` comes only from an element of a DataLoader's iteration or from the wrapped
        model's output: this rank's share of DataParallel's batch under DDP. The walk goes
        through what keeps the batch's rows (`Variable(x, flag)`, `.to(device)`: flow/
        carriers.py) and stops at a loader's construction (a loader factory of another
        module: its arguments, `get(args, path)`, are no rows of its batches). A parameter no
        call of the module passes (a loss object's `__call__(self, output, target)` handed
        the model's output in another module) may be that share: kept in `_handed`, said.
        A share beside a source not proved one (a loader the data pass left whole, a
        library's value): the size may be the share's, kept in `_unproved`, said."""
        if self._given is None:
            self._given = BatchGiven(view(self._module), self.t.qualified_names)
        found = False
        handed: list[str] = []
        unproved: list[Origin] = []
        for origin in origins(self._given.flow, value, self._stop):
            if origin.selects or origin.kind == "constant":
                continue
            if origin.kind == "parameter" and isinstance(origin.node, (cst.Param, cst.Name)):
                if not self._own_parameter(origin.node):  # the object's state, or a closure's
                    return False
                assert isinstance(origin.node, cst.Param)
                handed.append(origin.node.name.value)
            elif self._batch(origin):
                found = True
            else:
                unproved.append(origin)
        if handed and not unproved:  # a caller's value among the sources: not proved, said
            self._handed.extend(handed)
            return True
        if found and unproved:
            self._unproved = unproved[0]
            return True
        return found and not handed

    def _stop(self, call: cst.Call) -> bool:
        """Calls the walk does not go through: the batch's sources (BatchGiven) and the
        program's loader factories (`_made`)."""
        assert self._given is not None
        return self._given._given(call) or bool(self.t.qualified_names(call.func) & self._made)

    def _batch(self, origin: Origin) -> bool:
        """`origin` is an element of a sharded loader's iteration or the wrapped model's
        output (a factory's loader the data pass left whole, `ddp_shard=False`: no)."""
        call = origin.node
        if origin.kind != "call" or not isinstance(call, cst.Call):
            return False
        assert self._given is not None
        if not self.t.qualified_names(call.func) & (DATALOADER | self._made):
            return self._given._is_wrapped_call(call)
        whole = any(
            a.keyword is not None and a.keyword.value == SHARD_FLAG and _literal(a.value, False)
            for a in call.args
        )
        return origin.cut and not whole


def _mean_construction(node: cst.Call, names: Callable[[cst.CSTNode], set[str]]) -> bool:
    """A torch.nn loss object whose reduction is its default or 'mean'."""
    classes = {
        n.rsplit(".", 1)[-1] for n in names(node.func) if n.startswith("torch.nn.")
    } & _MEAN_OBJECTS
    positional = [a for a in node.args if a.keyword is None]
    if not classes or len(positional) > 1 or any(a.star for a in node.args):
        return False
    for arg in node.args:
        keyword = arg.keyword.value if arg.keyword is not None else None
        if keyword == "reduction" and not _literal(arg.value, "mean"):
            return False
        if keyword in ("size_average", "reduce") and not _literal(arg.value, True):
            return False
    return True


def global_count(count: cst.BaseExpression) -> cst.Call:
    """`ddp_global_count(count)`."""
    return cst.Call(
        func=cst.Name(GLOBAL_COUNT),
        args=[cst.Arg(count.with_changes(lpar=[], rpar=[]) if count.lpar else count)],
    )
