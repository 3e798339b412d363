"""The proof: every batch a wrapped model is given is this rank's part, or it is said.

For each call of a wrapped model in a training loop (not under `torch.no_grad()`), every
tensor it is given is followed back with dp2ddp/flow (`origins`): to a loader (the data pass
shards it) or a split on the way (planned by the loop planners or written before: proved);
to the model's own output, a constant or a value recomputed whole at every step (every rank
computes all of it: the averaged update is DataParallel's); to state sized along the split
dim by a name (`torch.zeros(1, bsz, h)` through `model.init_hidden(B)`: B takes this rank's
part, `ddp_per_rank_batch(B)`, at the call the flow came through); or to a batch cut from
data nobody split: split along a dim other than 0 where its source is bound when the loop
only slices rows of it (each rank steps through its columns), else where it enters the loop
(after the statement binding it, at the top of the loop whose target it is), else at the
call, as DataParallel's scatter did. The targets compared with the output follow the input.
In a loop over a loader (whose batch the data pass shards) each input is followed the same
way: one cut from data nobody split, not through a loader loop's target (noise drawn once
before the loop, `z = z_all[k * bs:(k + 1) * bs]` by a step counter), is split as above, and
the targets of that call cut alike with it; one cut or shaped by the loader's batch
(`noise[:real.size(0)]`, this rank's size, the same rows on every rank): DP047.
A call given only objects DataParallel's scatter does not split (batches/replicated.py: not a
tensor, tuple, list or dict; a graph's `Data`) stays whole, its targets too: DP181.
A random draw that selects the batch (`perm = np.random.permutation(n)`) runs inside
`with ddp_same_random():` so the ranks' parts are of one draw. A batch from a parameter or
an import the module cannot follow: DP047 with the flow, `source at L:C → ... → call`.

A training loop is one whose body trains, itself or through the module's own functions,
methods and callable objects (a loss object whose `__call__` steps); a call in a lambda given
as an argument runs in the loop around that call (`train_step(opt, lambda idx: (model(X[idx]),
Y[idx]), batch)`: what a closure returns beside the output is a target); a call in a step
helper that trains is proved from the helper's calls in training loops. Where a module has a
batch not proved split (DP037, DP047) or one every rank takes whole, the batches pass
decides per backward whether the hazards pass's `(loss * WORLD_SIZE).backward()` stays
(batches/summed.py): the scale is right only for a rank's part.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from dp2ddp.flow import DefUse, Origin, code, origins, view
from dp2ddp.transforms._support.nodes import (
    ModuleNodes,
    calls_model,
    name_of,
    target_names,
    walk,
)
from dp2ddp.transforms.analysis.fed_slots import fed_share
from dp2ddp.transforms.analysis.row_picks import rows_among
from dp2ddp.transforms.batches.beside import prove_beside_loader
from dp2ddp.transforms.batches.cut_counts import settle_cuts, settle_output_cuts
from dp2ddp.transforms.batches.fed import fed_share_loop
from dp2ddp.transforms.batches.held_targets import per_rank_held_targets
from dp2ddp.transforms.batches.loops import ROUNDS, SAME_RANDOM, SHARD, Step, _plain_target
from dp2ddp.transforms.batches.model_states import (
    from_method,
    model_method,
    per_rank_state,
    per_rank_states,
)
from dp2ddp.transforms.batches.numbers import held_alike
from dp2ddp.transforms.batches.pulled import bare_step, pull_of, split_pulled
from dp2ddp.transforms.batches.reduced import reduced_name, reduces_batch
from dp2ddp.transforms.batches.reordered import moved_later
from dp2ddp.transforms.batches.replicated import replicated
from dp2ddp.transforms.batches.sampled_parts import handed_on, sampled_tuple
from dp2ddp.transforms.batches.source_syntax import (
    FACTORIES,
    binding_of,
    constant_sizes,
    filled_later,
    holds_no_batch,
    per_dim_args,
    picks_setting,
    rows_cut,
    size_read,
)
from dp2ddp.transforms.batches.stepped import NUMBERS, fixed_sample, held_whole, moves_with
from dp2ddp.transforms.batches.summed import settle_migrated, whole_verdict
from dp2ddp.transforms.batches.training_loops import TrainingLoops
from dp2ddp.transforms.batches.unsplit import (
    handed_elsewhere,
    iterated_share,
    method_elsewhere,
    say_target,
    taken_elsewhere,
    unsplit_effect,
)

#: Factories sized like a tensor they are given (sized by the batch they meet).
_LIKE = frozenset({"zeros_like", "ones_like", "full_like", "empty_like", "randn_like", "rand_like"})
#: Calls given the model's output that compare nothing with it.
_NOT_COMPARING = frozenset({"print", "format", "append", "extend", "write", "log", "info"})
#: Methods that move data across the split dim (a source split before them is not the
#: batch split after them).
_ACROSS = frozenset({"t", "transpose", "permute", "flatten", "movedim", "swapaxes"})


class BatchProof(TrainingLoops):
    """The proof's questions and edits (see the module docstring); `_prove` runs it."""

    #: the training loops the loop planners settled this pass (split, DP037, a loader's)
    _planned: list[cst.For | cst.While]
    #: _own_rows's answers, per (flow, draw, split dim): each draw asked once
    _rows_owned: dict[tuple[int, int, int | None], bool]

    def _prove(self, module: cst.Module, nodes: ModuleNodes) -> None:
        """For each call of a wrapped model in a training loop, follow every tensor it is
        given (and the targets its output is compared with) back to its sources
        (dp2ddp/flow): a loader (the data pass shards it), a split of this pass, the
        model's own output, a constant, state the loop builds (sized per rank here), or a
        batch nobody split: split it where it enters the loop (or, along a dim other than
        the one the loop steps along, where the source is built), else DP047 with the flow.
        A function's parameter a call hands the wrap (this module's, or another module's:
        ProgramHints.wrap_parameters) is the wrapped model in that function (stop 52, v1-A)."""
        hinted = self.state.hints.wrap_parameters
        if not self._models and not hinted:
            return
        wrapped = set(self._models)
        handed = self._handed_wraps(module, wrapped)
        flow: DefUse | None = None  # built for the first call that needs it
        for call in nodes.of(cst.Call):
            wrapped_here = wrapped | self._handed_here(call, handed) if handed else wrapped
            if not calls_model(call, wrapped_here):
                continue
            loop: Step | None = self._training_loop(lambda: view(module), call)
            if loop is None:  # a step function other modules call (batches/pulled.py)
                loop = bare_step(self, flow := flow or view(module), call)
            if loop is None or (loop in self._planned and not calls_model(call, wrapped)):
                continue  # a handed wrap's loop the planners settled: theirs
            if SHARD in self.code(loop.body):  # split before (a migrated module): per call
                settle_migrated(self, flow := flow or view(module), call, wrapped_here)
                continue
            if any(a in self._warned for a in (loop, *self._ancestors_to(loop, module))):
                continue  # DP037 said it
            flow = flow or view(module)
            if self._evaluated(flow, call, loop):
                continue  # every rank computes the whole batch's outputs, as DataParallel did
            if not isinstance(loop, cst.FunctionDef) and (
                any(self._is_loader(u) for u in self._loop_sources(loop))
                or fed_share_loop(self, loop)
            ):
                if prove_beside_loader(self, flow, call, loop, wrapped_here):
                    self._split_calls.add(call)
                    per_rank_held_targets(self, flow, call, loop)
                continue
            self._prove_call(flow, call, loop, wrapped_here)

    def _handed_here(
        self, call: cst.Call, handed: dict[cst.FunctionDef, frozenset[str]]
    ) -> frozenset[str]:
        """The parameters of the function around `call` that a call hands the wrap."""
        if not handed:
            return frozenset()
        for ancestor in self._ancestors_to(call, None):
            if isinstance(ancestor, cst.FunctionDef):
                return handed.get(ancestor, frozenset())
        return frozenset()

    def _prove_call(self, flow: DefUse, call: cst.Call, loop: Step, wrapped: set[str]) -> None:
        """One model call: its inputs first (split where unproved, else DP047); where the
        batch it gets is this rank's part, the targets compared with its output and the
        state sized by the batch follow it."""
        self._proving_wrapped = frozenset(wrapped)  # a split at a loop's top reads them
        replicas = [None if a.star else replicated(flow, a.value) for a in call.args]
        if replicas and all(replicas):
            whole = whole_verdict(self, flow, call, wrapped)
            if whole is not None:  # every rank computes the original's whole step
                self._whole_calls[call] = whole
            self.warn(call, "DP181", f"{self.code(call)}: {replicas[0]}")
            return
        per_rank = False
        states: list[Origin] = []
        sliced: list[Origin] = []  # the slices on the way: their counts (cut_counts.py)
        methods: list[cst.Call] = []  # state the model's own methods build (model_states.py)

        def stop(other: cst.Call) -> bool:  # a model's output: a source, not walked through
            return calls_model(other, wrapped)

        for value in (a.value for a in call.args if not size_read(a.value)):
            found = origins(flow, value, stop)
            sliced += found
            method = model_method(self, found, wrapped)  # the wrapped model's own method's
            rest = [o for o in found if method is None or not from_method(self, o, method)]
            if method and all(self._classify(flow, o, wrapped) == "ok" for o in rest):
                methods.append(method)
                continue
            # selected by an index each rank takes its own of (`for i in
            # ddp_rank_batches(range(...))`: `X[i:i + n]`): this rank's batch
            dealt = any(o.selects and self._on_split(flow, o) for o in found)
            verdicts = [self._classify(flow, o, wrapped) for o in found]
            held = [o for o in found if not o.selects and o.cut]  # not `x * 1.0`'s 1.0
            if (
                held
                and all(held_whole(o) for o in held)
                and any(o.selects and moves_with(flow, o, loop) for o in found)
            ):
                # data the program holds whole (numbers, literals) cut at an index each
                # step of the loop moves (`for step in order: samples[step * n:...]`): the
                # step's batch, not a fixed sample batch every step computes alike
                verdicts = [
                    "batch" if o in held else v for o, v in zip(found, verdicts, strict=True)
                ]
            if not self._inside(call, loop) and {"sharded", "batch"} <= set(verdicts):
                # a step helper given split batches by one caller and whole ones by another:
                # a split at its model call would cut the split ones again
                self._unproved.add("DP047")
                self.warn(
                    call,
                    "DP047",
                    f"{self.code(value)} in {self.code(call)} is given batches split by one "
                    "caller and whole by another; every rank gets all of the whole ones",
                )
                return
            for origin, verdict in zip(found, verdicts, strict=True):
                if dealt and verdict == "batch":
                    verdict = "sharded"
                if verdict == "state":
                    states.append(origin)
                elif verdict == "sharded" or iterated_share(self, flow, origin):
                    per_rank = True
                elif verdict == "batch" and not fixed_sample(self, flow, call, loop, origin):
                    taken = taken_elsewhere(self, flow, origin)
                    pulled = not taken and pull_of(flow, origin) is not None
                    if pulled and not split_pulled(self, flow, call, value, origin):
                        return  # DP037 said it
                    if not pulled and (taken or not self._split_on_path(flow, origin, loop)):
                        self._unproved.add("DP047")
                        effect = unsplit_effect(self, flow, origin)
                        self.warn(
                            call,
                            "DP047",
                            f"{self.code(value)} in {self.code(call)} comes from "
                            f"{code(origin.node)} ({origin.kind}): "
                            f"{origin.flow(self.input_position)}; {effect}"
                            + self._per_process_note(),
                        )
                        return
                    self._share_data_draw(flow, origin, origin.path[-1].node)
                    per_rank = True
        if not per_rank:
            # no part of a split batch: where every input is computed whole and alike on
            # every rank, a summed loss over it is DataParallel's unscaled (summed.py)
            whole = whole_verdict(self, flow, call, wrapped) if call.args else None
            if whole is not None:
                self._whole_calls[call] = whole
            return
        for value in self._targets(flow, call, loop):
            found = origins(flow, value, stop)
            sliced += found
            if any(o.selects and self._on_split(flow, o) for o in found):
                continue  # selected by an index each rank takes its own of
            for origin in found:
                if origin.selects or origin.kind in ("constant", "definition", "global"):
                    continue
                if iterated_share(self, flow, origin):
                    continue  # the loader's batches, as the input's (stop 53 s3)
                node = origin.node
                if isinstance(node, cst.Call) and (
                    calls_model(node, wrapped)
                    or name_of(node.func).startswith("ddp_")
                    or self._is_loader(node)
                ):
                    continue
                if self._from_output(flow, origin, stop):
                    continue  # computed from this rank's output: not a target to split
                if isinstance(node, cst.Call) and name_of(node.func) in FACTORIES | _LIKE:
                    if self._state_factory(flow, origin, True) and (
                        not origin.cut or origin.entered()
                    ):
                        states.append(origin)
                        continue
                    if not origin.cut and not constant_sizes(node):
                        continue  # sized by the batch it meets (`torch.ones(x.size(0))`)
                taken = taken_elsewhere(self, flow, origin)
                if taken or not self._split_on_path(flow, origin, loop):
                    say_target(self, flow, call, value, origin, taken)
                    return
        for origin in states:
            per_rank_state(self, flow, origin, call)
        per_rank_states(self, methods, call)
        self._split_calls.add(call)
        settle_cuts(self, flow, call, sliced, wrapped)
        settle_output_cuts(self, flow, call, sliced, wrapped)

    def _per_process_note(self) -> str:
        if self.state.options.per_process_batch:
            return " (--per-process-batch deals out whole batches of a loop's iterable only)"
        return ""

    def _targets(self, flow: DefUse, call: cst.Call, loop: Step) -> list[cst.BaseExpression]:
        """What the model's output is compared with: the other operands of a call,
        operation or comparison given the output (`mse_loss(model(x), y)`,
        `criterion(out.view(-1, n), t)`, `(model(x) - y)`), and what a step closure returns
        beside it (`lambda idx: (model(X[idx]), Y[idx])`: the helper it is given compares
        them)."""
        outputs: set[str] = set()
        statement = flow.statement_of(call)
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign) and small.value is call:
                    for target in small.targets:
                        outputs |= target_names(target.target)

        def given(operand: cst.BaseExpression) -> bool:
            """The operand is the output: the call or an output name, through methods,
            attributes and items (`out.view(-1, n)`, `model(x).squeeze()`, `out[0]`)."""
            while True:
                if operand is call:
                    return True
                if isinstance(operand, cst.Name):  # not once reduced over the batch (v1-D)
                    return operand.value in outputs and not reduced_name(flow, operand)
                if reduces_batch(operand):
                    return False  # `out.mean(0)`: no rows of the output
                if isinstance(operand, cst.Call) and isinstance(operand.func, cst.Attribute):
                    operand = operand.func.value
                elif isinstance(operand, (cst.Attribute, cst.Subscript)):
                    operand = operand.value
                elif isinstance(operand, cst.UnaryOperation):
                    operand = operand.expression
                else:
                    return False

        found: list[cst.BaseExpression] = []
        region: cst.CSTNode = loop.body
        if not self._inside(call, loop):  # in a step helper the loop calls: its body
            region = next(a for a in flow.ancestors(call) if isinstance(a, cst.FunctionDef))
        for other in walk(region):
            operands: list[cst.BaseExpression]
            if isinstance(other, cst.Call) and other is not call:
                operands = [a.value for a in other.args if a.keyword is None and not a.star]
                if (
                    len(operands) != 2
                    or calls_model(other, self._models)
                    or name_of(other.func) in _NOT_COMPARING
                    or any(
                        n.startswith("torch.autograd.") for n in self.qualified_names(other.func)
                    )
                ):
                    continue  # a loss takes (output, target); not a print, a gradient
            elif isinstance(other, cst.BinaryOperation):
                operands = [other.left, other.right]
            elif isinstance(other, cst.Comparison):
                operands = [other.left, *(c.comparator for c in other.comparisons)]
            elif isinstance(other, cst.Tuple) and isinstance(
                flow.parent(other), (cst.Lambda, cst.Return)
            ):  # a step closure's `return out, y`: the caller compares them
                operands = [e.value for e in other.elements if isinstance(e, cst.Element)]
            else:
                continue
            if len(operands) < 2:
                continue
            if any(given(o) for o in operands):
                # an operand built from the output (`losses['l1'] * w` beside `losses['mse']`)
                # is not compared with it: the leaves of its own operations are the targets
                found += [
                    o
                    for o in operands
                    if not any(
                        given(n) if isinstance(n, cst.BaseExpression) else False for n in walk(o)
                    )
                    and not any(calls_model(n, self._models) for n in walk(o))
                ]
        return found

    def _classify(self, flow: DefUse, origin: Origin, wrapped: set[str]) -> str:
        """ok (same on every rank, already this rank's, or sharded), state (built by the
        program, sized along the split dim), batch (data nobody split yet)."""
        if origin.selects and not handed_elsewhere(self, origin):
            picks = any(step.index for step in origin.path)  # also where it sizes (np.zeros)
            if picks and origin.kind == "call" and self._draws(origin.node):
                self._share_draw(flow, origin)
            return "ok"
        if holds_no_batch(origin, self._dim):
            return "ok"  # it sizes a tensor along another dim, or was split before
        if origin.kind == "constant" and origin.cut and filled_later(origin.node):
            # `dataset = []` filled by appends, a batch cut from it at each step: data the
            # program built, not a constant every rank computes whole (v2-A, stop 41)
            return "batch"
        if not origin.cut and method_elsewhere(self, origin):
            return "batch"  # what another module's own method returns: not followed
        if held_alike(flow, origin):
            return "ok"
        if self._on_split(flow, origin):
            return "sharded"
        if pull_of(flow, origin) is not None:
            return "batch"  # pulled from a provider the callers hand (batches/pulled.py)
        if self._state_factory(flow, origin) and (not origin.cut or origin.entered()):
            return "state"  # built for the batch (`model.init_hidden(bsz)`), not cut from data
        if not origin.cut and not self._drawn_elsewhere(flow, origin):
            # the same value at every step, not a batch cut from data: every rank computes
            # all of it, and the averaged update is DataParallel's (noise drawn in the loop
            # is the randomness rules' question)
            return "ok"
        node = origin.node
        if origin.kind == "call" and isinstance(node, cst.Call):
            if calls_model(node, wrapped):
                return "ok"  # the model's output: this rank's already
            if self._from_output(flow, origin, lambda c: calls_model(c, wrapped)):
                return "ok"  # computed from the model's output: this rank's too
            if name_of(node.func).startswith("ddp_") or self._is_loader(node):
                return "sharded"

            if name_of(node.func) in NUMBERS:
                return "ok"
            if any(n.startswith("argparse.") for n in self.qualified_names(node.func)):
                # the command line's values, alike on every rank (round 38, YyzHarry/
                # imbalanced-regression@a6fdc45: the epoch from `range(args.start_epoch,
                # ...)` handed to the model; the parser's result was split)
                return "ok"
        return "batch"

    def _from_output(self, flow: DefUse, origin: Origin, stop: Callable[[cst.Call], bool]) -> bool:
        """A library call the walk stopped at (`torch.mean(losses[k])`, `out.sum()` spelled
        as a function) whose arguments come from a wrapped model's output: a value computed
        from this rank's output is this rank's (DataParallel computed it from the gathered
        output, each rank from its part), never a batch nobody split nor a target to cut.
        Splitting it anyway cuts a loss (a 0-dim tensor: no dim to split) or a reduced
        figure. A call with no argument from an output (`np.load(path)`) stays a source."""
        node = origin.node
        if origin.kind != "call" or not isinstance(node, cst.Call):
            return False
        given: list[cst.BaseExpression] = [a.value for a in node.args]
        if isinstance(node.func, cst.Attribute):
            given.append(node.func.value)  # a method's receiver (`np.mean` has none of note)
        for value in given:
            for found in origins(flow, value, stop):
                if isinstance(found.node, cst.Call) and stop(found.node):
                    return True
        return False

    def _state_factory(self, flow: DefUse, origin: Origin, named: bool = False) -> bool:
        """A tensor factory sized along the split dim by a name (`named`: not a setting's
        attribute; a target so sized is split where it is bound, as before stop 66): state
        built for a batch (sized per rank), unless the path cuts rows of it (`rows_cut`)."""
        size = self._sized_along_dim(origin.node) if isinstance(origin.node, cst.Call) else None
        named_ok = not (named and isinstance(size, cst.Attribute))
        return size is not None and named_ok and not rows_cut(flow, origin, self._dim)

    def _share_draw(self, flow: DefUse, origin: Origin) -> None:
        """A random draw that selects the batch (`perm = np.random.permutation(n)`, `idx =
        perm[i:i + bs]`): drawn per rank the parts overlap; in `with ddp_same_random():`
        every rank cuts its part of rank 0's draw, as DataParallel cut one draw."""
        statement = flow.statement_of(origin.node)
        if statement in self._same_random or SAME_RANDOM in self.code(statement):
            return
        if not self._outside_same_random(statement) or self._own_rows(flow, origin.node):
            return
        if picks_setting(flow, origin):  # no row of the data: a table of settings
            return
        self._draw_alike_at(
            statement,
            f"{code(origin.node)} selects training batches: drawn alike on every rank "
            "(ddp_same_random), so the ranks' parts of each batch do not overlap",
        )

    def _own_rows(self, flow: DefUse, draw: cst.CSTNode) -> bool:
        """A draw sized by a batch already this rank's (`torch.randperm(y.size(0))`): it
        orders this rank's own rows; drawn alike it would force rank 0's order on every
        rank, against DP147's advice (round 21, STGAN-pytorch@1136a5d). Also positions drawn
        up to it (`torch.randint(0, y.size(0), (n,))`: analysis/row_picks.rows_among)."""
        key = (id(flow), id(draw), self._dim)
        known = self._rows_owned.get(key)
        if known is None:
            # asked once per draw: a batch rebound from itself through draws sized by it
            # (`x = lam * x + (1 - lam) * x[torch.randperm(x.size(0))]`, over and over)
            # asked each earlier draw again per path, exponentially (stop 74); a draw met
            # again while it is asked (a cycle) proves nothing
            self._rows_owned[key] = False
            size = rows_among(draw) if isinstance(draw, cst.Call) else None
            known = self._rows_owned[key] = size is not None and any(
                self._classify(flow, found, set()) == "sharded"
                for name in walk(size)
                if isinstance(name, cst.Name)
                for found in origins(flow, name)
            )
        return known

    def _sized_along_dim(self, call: cst.Call) -> cst.BaseExpression | None:
        """`torch.zeros(1, bsz, n)` with the split dim 1: the size along it (`bsz`, or a
        setting's `hp.batch_size`: dummy-ai/tacotron-pytorch@2d99b60's GO frame, stop 66),
        for a tensor factory of a library (not of this module)."""
        if name_of(call.func) not in FACTORIES or not isinstance(call.func, cst.Attribute):
            return None
        sizes = per_dim_args(call)
        if self._dim is None or self._dim >= len(sizes):
            return None
        size = sizes[self._dim]
        if isinstance(size, cst.Attribute):  # a fill, not a draw (DP006 says those)
            return size if name_of(call.func) in ("zeros", "ones", "empty", "full") else None
        return size if isinstance(size, cst.Name) else None

    def _split_on_path(self, flow: DefUse, origin: Origin, loop: Step) -> bool:
        """The batch's path goes through a loader (the data pass shards it) or a split
        (planned here or written before), or one is planned now: where the batch enters
        the loop (after the statement binding it, or at the top of the loop whose target
        it is), at its source (along a dim other than the one the loop steps along), or
        at the call itself, as DataParallel's scatter did."""
        if self._on_split(flow, origin):
            return True
        if self.state.options.per_process_batch:
            return False  # whole batches in turn: only loops over batches are dealt out
        if origin.kind not in ("call", "constant"):
            return False  # a parameter, an import...: what it holds is not this module's
        if not isinstance(loop, cst.FunctionDef):  # its figures are this rank's share (DP030)
            self._split_loops.append(loop)
        if self._split_source_of(flow, origin, loop):
            return True
        for at, node in enumerate(step.node for step in origin.path):  # where it enters
            if not isinstance(node, cst.Name) or not self._inside(node, loop):
                continue
            small = binding_of(flow, node)
            if isinstance(small, cst.Assign) and moved_later(flow, origin.path[at + 1 :], small):
                return self._split_at_call(flow, origin)  # `x = x.t()` before the model
            if isinstance(small, cst.Assign):
                if self._split_after_binding(flow, small, origin):
                    return True
                break
            if isinstance(small, cst.For) and (small is loop or self._inside(small, loop)):
                if self._split_loop_target(small, origin):
                    return True
                break
        parts = sampled_tuple(flow, origin)  # one sampled batch's parts, split together
        if parts is not None and self._split_after_binding(flow, parts, origin):
            for call, part in handed_on(flow, parts, set(self.state.wrapped)):
                self.warn(call, "DP189", f"`{part}` handed to `{self.code(call.func)}()`")
            return True
        return self._split_at_call(flow, origin)

    def _split_after_binding(self, flow: DefUse, assign: cst.Assign, origin: Origin) -> bool:
        """`xb, yb = X[i:i + n], Y[i:i + n]` in the loop: split right after it (inputs and
        targets bound together are split together)."""
        statement = flow.statement_of(assign)
        if len(assign.targets) != 1 or not isinstance(statement, cst.SimpleStatementLine):
            return False
        target = assign.targets[0].target
        if not _plain_target(target) or len(statement.body) != 1:
            return False
        if statement not in self._split_after:
            self._split_after[statement] = list(self._split_binding(assign))
            self.state.helpers.add("shard_batch")
            self._draw_alike(statement, assign)
            self.record(
                statement,
                f"{self.code(target)} (a batch reaching the model) split {self._along()}: "
                f"{self._each()} ({origin.flow(self.input_position)})",
            )
        return True

    def _split_appended(self, flow: DefUse, binding: cst.Assign) -> bool:
        """`hidden = []`, filled by `hidden.append(model.init_hidden(B))` per chunk (v2-B,
        stop 58, vansky/neural-complexity@3c057f8): the empty list holds nothing to split (a
        split there kept the global batch's states: the first step raised); each appended
        value is split where it is appended. Not proved (False) without an append in the
        list's scope."""
        name = self.code(binding.targets[0].target)
        appended = [
            call.args[0].value
            for call in walk(flow.scope_of(binding))
            if isinstance(call, cst.Call)
            and isinstance(call.func, cst.Attribute)
            and call.func.attr.value == "append"
            and self.code(call.func.value) == name
            and len(call.args) == 1
        ]
        if not appended:
            return False
        self._swap.setdefault(binding.value, binding.value.deep_clone())  # the split's mark
        for value in appended:
            if value not in self._swap:
                self._swap[value] = self._shard_call(value.deep_clone())
        self.state.helpers.add("shard_batch")
        self.record(binding, f"what is appended to {name} split {self._along()}: {self._each()}")
        return True

    def _split_loop_target(self, loop: cst.For, origin: Origin) -> bool:
        """`for real in batches:` in (or as) the training loop: split at the top of it."""
        batch = self._batch_target(loop)
        if (
            batch is None
            or not _plain_target(batch)
            or not isinstance(loop.body, cst.IndentedBlock)
        ):
            return False
        if loop not in self._split_top:
            self._split_top[loop] = [self._loop_top_split(loop, batch)]
            self.state.helpers.add("shard_batch")
            self.record(
                loop,
                f"every {self.code(batch)} of {self.code(self._batch_source(loop.iter))} split "
                f"{self._along()}: {self._each()} ({origin.flow(self.input_position)})",
            )
        return True

    def _on_split(self, flow: DefUse, origin: Origin) -> bool:
        """The path goes through a loader or a split (planned here or written before), or
        starts at a parameter the program's sites hand sharded loaders (facts.LoaderFeed)."""
        if origin.kind == "parameter" and fed_share(flow, origin.node, self.state.loaders.fed):
            return True
        for node in (step.node for step in origin.path):
            statement = flow.statement_of(node)
            if statement in self._split_after or node in self._swap:
                return True
            for ancestor in flow.ancestors(node):
                if (
                    isinstance(ancestor, cst.For)
                    and (node is ancestor.target or self._inside(node, ancestor.target))
                    and (
                        ancestor in self._split_top
                        or any(
                            k is ancestor.iter or self._inside(k, ancestor.iter) for k in self._swap
                        )
                    )
                ):
                    return True
            if isinstance(node, (cst.Name, cst.Attribute, cst.Call)) and self._is_loader(node):
                return True
            if isinstance(node, cst.Call) and name_of(node.func) in (SHARD, ROUNDS):
                return True
        return False

    def _split_at_call(self, flow: DefUse, origin: Origin) -> bool:
        """No statement of the loop binds the batch (`model(xb[j:j + 4])`, a batch bound
        outside the loop): split where it meets the model (or, for a target, the model's
        output), as DataParallel's scatter did at that call. A method chain on a name
        (`targets.reshape(-1)`) is split at the name, before it is reshaped."""
        sink = origin.path[-1].node
        if not isinstance(sink, cst.BaseExpression):
            return False
        root = sink
        while isinstance(root, cst.Call) and isinstance(root.func, cst.Attribute):
            root = root.func.value
        if isinstance(root, cst.Name) and not any(
            isinstance(r.node, (cst.Import, cst.ImportFrom)) for r in self.referents(root)
        ):  # not a module's function (`torch.from_numpy(y)...`: round 31, da-rnn@1db1e79)
            sink = root
        if sink not in self._swap:
            self._swap[sink] = self._shard_call(sink.deep_clone())
            self.state.helpers.add("shard_batch")
            self.record(
                sink,
                f"{self.code(sink)} split where it meets the model, {self._along()}: "
                f"{self._each()} ({origin.flow(self.input_position)})",
            )
        return True

    def _split_source_of(self, flow: DefUse, origin: Origin, loop: Step) -> bool:
        """Along a dim other than 0, a source bound outside the loop and only sliced by
        rows on the way from there to the model (`train_data = batchify(data, B)`,
        `source[i:i + n]`): split where it is bound (the last binding before the loop);
        each rank then steps through its columns, as DataParallel's scatter gave each GPU
        its columns of every batch."""
        if not self._dim:
            return False
        path = origin.path
        scopes: list[cst.CSTNode] = []  # the loop's scope and those around it
        scope: cst.CSTNode | None = flow.scope_of(loop)
        while scope is not None:
            scopes.append(scope)
            scope = flow.outer(scope)  # type: ignore[arg-type]
        last = None
        for index, step in enumerate(path):
            if isinstance(step.node, cst.Name) and not self._inside(step.node, loop):
                small = binding_of(flow, step.node)
                if (
                    isinstance(small, cst.Assign)
                    and not self._inside(small, loop)
                    and flow.scope_of(small) in scopes  # not inside a helper it calls
                ):
                    last = (index, small)
        if last is None:
            return False
        index, binding = last
        if len(binding.targets) != 1 or not isinstance(binding.targets[0].target, cst.Name):
            return False
        for step in path[index:]:
            parent = flow.parent(step.node)
            if isinstance(parent, cst.Subscript) and parent.value is step.node:
                if len(parent.slice) != 1:
                    return False  # a slice along more than the first dim
            if (
                isinstance(parent, cst.Attribute)
                and parent.value is step.node
                and parent.attr.value in _ACROSS
            ):
                return False
        if filled_later(binding.value):
            return self._split_appended(flow, binding)
        if binding.value not in self._swap:
            self._swap[binding.value] = self._shard_call(binding.value.deep_clone())
            self.state.helpers.add("shard_batch")
            self.record(
                binding,
                f"{self.code(binding.targets[0].target)} split {self._along()} where it is "
                f"bound: the loop slices rows of it, {self._each()} "
                f"({origin.flow(self.input_position)})",
            )
        return True
