"""Batches a function of the program draws: every rank draws what rank 0 draws.

A batch bound by a call of a function that draws (`random.shuffle`, `np.random` in its
body: this module's by its text, another module's by ProgramFacts.draws), or by `next()` of
a generator such a call returned (MrGiovanni/ModelsGenesis@12f7feb's `generate_pair()`), is
drawn by each process on its own under torchrun: one draw per rank where DataParallel's one
process drew one. Such a binding runs inside `with ddp_same_random():`
(templates/helpers/same_random.py.j2), so every rank takes rank 0's draw, the original's:

- a training batch split after its binding (the proof, proof.py): each rank cuts its part
  of one draw, parts that do not overlap (stop 41's v1-B; before, they overlapped);
- a batch every rank takes whole in a loop that trains, drawn by `next()` of such a
  generator: the validation batch of an epoch loop, whose loss decides early stopping
  (stop 41's v1-C; before, each rank evaluated its own draws and the ranks left the epoch
  loop at different epochs: "Connection closed by peer", or a hang). Every rank evaluates
  the original's draw with the same weights: the figure, and what it decides, is alike.

Data a batch split by the proof is cut from, drawn from a process-wide stream no seed makes
alike (`corpus = torch.randn(64, 8)` before the loop, `x = corpus[i:j]`; or a function of
the module that returns such a draw, `corpus = build_corpus()`): each rank would take its
share of a corpus of its own (stop 51, w7). The statement that draws it (or binds the
function's result, the call site; not a generator's, which draws as the loop iterates it)
runs inside `with ddp_same_random():` where every rank reaches it (a condition on a file,
a cache's `if os.path.exists(...)`, is rank 0's: the rank-zero pass). Noise drawn in the
loop is DP006's question.

A batch a method or function of another module makes anew at every call by drawing
(ProgramFacts.draws, as the hazards pass finds its calls for DP006: MigrationState.
elsewhere_draws; `x, y = dataset.xy(4, 8)`, whose `Data.batch()` picks files with
`random.sample` and a window per file with `random.randrange`) is a batch, not a value
every rank computes whole at every step, even where the walk sees nothing cut on the way
(it cannot enter the other module; stop 55 round 8b r2-A, MusicTransformer-pytorch): made
rank 0's or drawn alike, it is the global batch DataParallel scattered, so it is split
after its binding, the binding drawn alike (`_drawing_source`). Agreed is not sharded.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import PositionProvider

from dp2ddp.flow import DefUse, Origin, code, origins, view
from dp2ddp.transforms._support.nodes import ModuleNodes, name_of, walk
from dp2ddp.transforms.analysis.random_draws import RANDOM_DRAWS, own_stream, shared_stream
from dp2ddp.transforms.analysis.seeded_streams import alike_streams, stream_of
from dp2ddp.transforms.batches.loops import SAME_RANDOM, BatchLoops

#: torch's random draws (numpy's and Python's: their module prefix).
_TORCH_DRAWS = frozenset({"torch.randperm", "torch.randint", "torch.multinomial"})
#: torchvision's transforms (`torchvision.transforms` and `.v2`) that draw at each call.
_RANDOM_TRANSFORMS = frozenset(
    """RandomCrop RandomResizedCrop RandomHorizontalFlip RandomVerticalFlip RandomRotation
    RandomAffine RandomPerspective ColorJitter RandomErasing RandomGrayscale RandomInvert
    RandomPosterize RandomSolarize RandomAdjustSharpness RandomAutocontrast RandomEqualize
    GaussianBlur GaussianNoise AutoAugment RandAugment TrivialAugmentWide AugMix
    ElasticTransform RandomZoomOut RandomIoUCrop RandomPhotometricDistort
    RandomChannelPermutation RandomShortestSize RandomResize ScaleJitter MixUp CutMix
    RandomApply RandomChoice RandomOrder""".split()
)
#: Transforms that hold others (`Compose([...])`): random where one they hold is.
_CONTAINERS = frozenset({"Compose", "RandomApply", "RandomChoice", "RandomOrder"})
#: Draws that reorder their argument in place.
_SHUFFLES = frozenset({"random.shuffle", "numpy.random.shuffle"})


class DrawnBatches(BatchLoops):
    """Which bindings draw their batch (`_drawing_source`) and the two edits above."""

    def _draw_alike(self, statement: cst.CSTNode, assign: cst.Assign) -> None:
        """The batch `assign` binds (a split follows) drawn here: each rank would cut its
        part of a draw of its own, parts that overlap (class v1-B, stop 41). In `with
        ddp_same_random():` every rank cuts its part of rank 0's draw, as DataParallel cut
        one."""
        if statement in self._same_random:
            return
        source = self._drawing_source(assign, next_only=False)
        if source is None and self._module is not None:
            flow = view(self._module)
            for origin in origins(flow, assign.value):
                self._share_data_draw(flow, origin, statement)
        if source is not None:
            self._draw_alike_at(
                statement,
                f"{self.code(source)} draws the batch: drawn alike on every rank "
                "(ddp_same_random), so the ranks' parts are of one draw",
            )
            self._share_argument_draws(source)

    def _draw_whole_alike(self, nodes: ModuleNodes) -> None:
        """Each batch every rank takes whole (no split follows its binding) in a loop that
        trains, bound by `next()` of a generator a drawing function returned: drawn in
        `with ddp_same_random():` (class v1-C, stop 41; see the module docstring)."""
        for assign in nodes.of(cst.Assign):
            statement = self.parent(assign)
            if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
                continue
            if statement in self._same_random or statement in self._split_after:
                continue
            if not self._in_training_loop(statement):
                continue
            source = self._drawing_source(assign, next_only=True)
            if source is None:
                continue
            self._share_argument_draws(source)
            self._draw_alike_at(
                statement,
                f"{self.code(source)} draws a batch every rank takes whole in the training "
                "loop: drawn alike on every rank (ddp_same_random), so what the ranks compute "
                "from it, and decide (an early stop), is alike",
            )

    def _share_shuffles(self, nodes: ModuleNodes) -> None:
        """An in-place shuffle of an order or of the samples (`random.shuffle(order)`,
        `np.random.shuffle(idx)`: a statement of its own) whose name a training loop of its
        function reads, where this pass split that loop's batch: each rank would shuffle
        its own way and cut its part of its own order, parts that overlap and miss samples
        (the flow sees no binding in a call's argument). In `with ddp_same_random():` every
        rank cuts its part of rank 0's order, as DataParallel scattered the batches of one
        order. A shuffle no split batch comes from is then alike too, which changes nothing
        but that the ranks agree."""
        split = [loop for loop, _ in self._split_places()] + self._split_loops
        if not split:
            return
        for call in nodes.of(cst.Call):
            names = self.qualified_names(call.func)
            if not names & _SHUFFLES or not shared_stream(call, names) or not call.args:
                continue
            expr = self.parent(call)
            statement = self.parent(expr) if isinstance(expr, cst.Expr) else None
            if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
                continue
            if statement in self._same_random or not self._outside_same_random(statement):
                continue
            shuffled = self.code(call.args[0].value)
            home = self._function_around(statement)
            if any(
                self._function_around(loop) is home
                and any(
                    isinstance(n, (cst.Name, cst.Attribute)) and self.code(n) == shuffled
                    for n in walk(loop)
                )
                for loop in split
            ):
                self._draw_alike_at(
                    statement,
                    f"{self.code(call.func)}({shuffled}) orders a split training loop's "
                    "batches: drawn alike on every rank (ddp_same_random), so the ranks' "
                    "parts of each batch do not overlap",
                )

    def _function_around(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return next(
            (a for a in self._ancestors_to(node, None) if isinstance(a, cst.FunctionDef)), None
        )

    def _share_argument_draws(self, source: cst.Call) -> None:
        """The data a drawing batch source is given (`generate_pair(data, 4)`), where a
        statement draws it (`data = np.random.rand(16, 4)`, unseeded): drawn alike too, or
        each rank would take rank 0's rows of an array of its own."""
        if self._module is None:
            return
        flow = view(self._module)
        for arg in source.args:
            for origin in origins(flow, arg.value):
                node = origin.node
                if origin.kind != "call" or not any(self._draws(n) for n in walk(node)):
                    continue
                statement = flow.statement_of(node)
                if (
                    not isinstance(statement, cst.SimpleStatementLine)
                    or statement in self._same_random
                    or not self._outside_same_random(statement)
                ):
                    continue
                self._draw_alike_at(
                    statement,
                    f"{self.code(node)} draws the data {self.code(source)} draws batches "
                    "from: drawn alike on every rank (ddp_same_random)",
                )

    def _share_data_draw(self, flow: DefUse, origin: Origin, batch: cst.CSTNode) -> None:
        """A batch split at `batch` (a statement or expression) cut (`origin.cut`) from a
        draw of a process-wide stream the program does not seed alike, drawn outside the
        loops around `batch`: drawn alike on every rank (see the module docstring)."""
        draw = origin.node
        if not origin.cut or origin.kind != "call" or not isinstance(draw, cst.Call):
            return
        if own_stream(draw):
            return
        loops = [a for a in flow.ancestors(batch) if isinstance(a, (cst.For, cst.While))]
        names = self.qualified_names(draw.func)
        alike = alike_streams(self.state.facts.seeded_streams, lambda: self.state.text or "")
        if not names & RANDOM_DRAWS or stream_of(names) in alike:
            return
        entered = origin.entered()
        function = next((a for a in flow.ancestors(draw) if isinstance(a, cst.FunctionDef)), None)
        statement = flow.statement_of(draw)
        if entered and function is not None and not self._inside(batch, function):
            if any(isinstance(n, (cst.Yield, cst.Await)) for n in walk(function)):
                return  # a generator draws as it is iterated, in the loop: DP006's
            statement = flow.statement_of(entered[0])  # the call site of the drawing function
        if (
            not isinstance(statement, cst.SimpleStatementLine)
            or statement in self._same_random
            or any(self._inside(statement, around) for around in loops)
            or not self._outside_same_random(statement)
        ):
            return
        self._draw_alike_at(
            statement,
            f"{code(draw)} draws the data the batch is cut from: drawn alike on every rank "
            "(ddp_same_random), so the ranks' parts are of one draw, the original's",
        )

    def _augment_alike(self, nodes: ModuleNodes) -> None:
        """A random augmentation called on a batch in a loop that trains (`x =
        train_transform(x)`, `train_transform = v2.Compose([v2.RandomCrop(32, 4),
        v2.RandomHorizontalFlip()])`: FFly/pytorch-cifar10-all-in-gpu@93d9401, s2-A of stop
        62): torchvision's transforms draw once per call, one crop and one flip for every
        image of the tensor. DataParallel's one process drew once for the global batch;
        each rank would draw its own for its share. The statement (a plain `name = T(...)`
        whose callee is bound only to such an object, every rank reaching it as often: no
        `if` between it and the loop) runs in `with ddp_same_random():`, every rank drawing
        rank 0's crop and flip: the one draw DataParallel applied to the whole batch. Under
        an `if`, DP006: the ranks are not proved to reach it as often."""
        text = self.state.text or ""
        if self._module is None or "torchvision" not in text:
            return
        if not any(name in text for name in _RANDOM_TRANSFORMS):
            return  # no transform that draws is named here (the module's text)
        flow = view(self._module)
        for assign in nodes.of(cst.Assign):
            statement, call = self.parent(assign), assign.value
            if (
                not isinstance(statement, cst.SimpleStatementLine)
                or len(statement.body) != 1
                or statement in self._same_random
                or not isinstance(call, cst.Call)
                or not isinstance(call.func, (cst.Name, cst.Attribute))
                or not call.args
                or not self._in_training_loop(statement)
            ):
                continue
            made = [o.node for o in origins(flow, call.func) if not o.selects]
            calls = [n for n in made if isinstance(n, cst.Call)]
            outer = [n for n in calls if not any(c is not n and self._inside(n, c) for c in calls)]
            if (
                outer
                and all(any(n is c or self._inside(n, c) for c in outer) for n in made)
                and all(self._augments(n) for n in outer)
            ):
                if not self._each_step(statement):
                    self.warn(
                        call,
                        "DP006",
                        f"{self.code(call.func)}() is a random augmentation "
                        f"({self.code(outer[0])}) applied to the batch under a condition: "
                        "each rank draws its own for its share, where DataParallel's "
                        "process drew once for the whole batch",
                    )
                    continue
                self._draw_alike_at(
                    statement,
                    f"{self.code(call.func)} is a random augmentation "
                    f"({self.code(outer[0])}) applied to the batch: drawn alike on "
                    "every rank (ddp_same_random), one draw for the global batch as "
                    "DataParallel's process drew it",
                )

    def _augments(self, node: cst.CSTNode) -> bool:
        """A torchvision transform that draws (`RandomCrop(...)`), or a container of
        transforms (`Compose([...])`, `RandomApply`, `nn.Sequential(...)`) holding one."""
        if not isinstance(node, cst.Call):
            return False
        names = self.qualified_names(node.func)
        tails = {n.rpartition(".")[2] for n in names if n.startswith("torchvision.transforms.")}
        if tails & _RANDOM_TRANSFORMS:
            return True
        if not tails & _CONTAINERS and "torch.nn.Sequential" not in names:
            return False
        return any(self._augments(n) for a in node.args for n in walk(a.value))

    def _each_step(self, statement: cst.CSTNode) -> bool:
        """No `if` (nor a nested function) between `statement` and its nearest loop."""
        node = self.parent(statement)
        while node is not None and not isinstance(node, (cst.For, cst.While)):
            if isinstance(node, (cst.If, cst.FunctionDef, cst.Lambda, cst.Module)):
                return False
            node = self.parent(node)
        return node is not None

    def _draw_alike_at(self, statement: cst.CSTNode, reason: str) -> None:
        """Run `statement` inside `with ddp_same_random():` (the pass's leave hook wraps
        each statement of `_same_random`), with the helpers that needs, and say why."""
        self._same_random.add(statement)
        self.state.helpers.update({"same_random", "rank0_value"})
        self.record(statement, reason)
        try:  # its draws are alike now: DP006 there is false (MigrationState.alike_spans)
            where = self.get_metadata(PositionProvider, statement)
        except KeyError:
            return
        line_map = self.state.line_map
        self.state.alike_spans.add((line_map(where.start.line), line_map(where.end.line)))

    def _outside_same_random(self, statement: cst.CSTNode) -> bool:
        node = self.parent(statement)
        while node is not None:
            if isinstance(node, cst.With) and SAME_RANDOM in self.code(node.items[0]):
                return False
            node = self.parent(node)
        return True

    def _in_training_loop(self, statement: cst.CSTNode) -> bool:
        """`statement` runs in a loop of its function that trains, and not already inside
        `with ddp_same_random():` (migrated before: a fixed point)."""
        node = self.parent(statement)
        found = False
        while node is not None and not isinstance(node, (cst.FunctionDef, cst.Module)):
            if isinstance(node, cst.With) and SAME_RANDOM in self.code(node.items[0]):
                return False
            if isinstance(node, (cst.For, cst.While)) and not found:
                found = self._trains(node)
            node = self.parent(node)
        return found

    def _drawing_source(self, assign: cst.Assign, *, next_only: bool) -> cst.Call | None:
        """The call that draws what `assign` binds: a call of a function that draws (of
        this module, by its body; of another, `state.random_helpers`), or the call that
        made the generator `next()` reads; with `next_only`, only the latter. None if
        none."""
        if self._module is None:
            return None
        flow = view(self._module)
        made: list[cst.Call] = []
        for node in walk(assign.value):
            if not isinstance(node, cst.Call):
                continue
            if "builtins.next" in self.qualified_names(node.func) and node.args:
                made += [
                    o.node
                    for o in origins(flow, node.args[0].value)
                    if o.kind == "call" and isinstance(o.node, cst.Call)
                ]
            elif not next_only:
                made.append(node)
        imported = set(self.state.random_helpers)
        for source in made:
            function = self._definitions.get(name_of(source.func))
            if (
                self._callee_names(source) & imported
                or self._elsewhere_draw(source)
                or (
                    isinstance(function, cst.FunctionDef)
                    and any(self._draws(n) for n in walk(function))
                )
            ):
                return source
        return None

    def _elsewhere_draw(self, call: cst.Call) -> bool:
        """`call` runs another module's function or method that draws from a process-wide
        stream (`dataset.xy(4, 8)` on an object of a program class whose method draws), as
        the hazards pass found it for DP006 (MigrationState.elsewhere_draws)."""
        found = self.state.elsewhere_draws
        return bool(found) and (self.input_position(call)[0], self.code(call.func)) in found

    def _drawn_elsewhere(self, flow: DefUse, origin: Origin) -> bool:
        """The value reaches the model as what a method of an object on its path returns
        (`dataset.xy(4, 8)`, reached through `dataset`), a method of another module's
        class that draws and is given no data (no argument holds a part of anything: sizes,
        names of a config): it makes the batch from the object's own data anew at every
        call, a batch (see the module docstring), whatever the walk saw cut. A helper given
        the batch (`mixup_data(x, y)`, `aug.mix(x)`) transforms a batch whose own source
        the proof follows; a split after it too would cut a split batch again."""
        for node in (step.node for step in origin.path):
            parent = flow.parent(node)
            if not (isinstance(parent, cst.Attribute) and parent.value is node):
                continue
            call = flow.parent(parent)  # `dataset.xy(...)`, reached through `dataset`
            if not (isinstance(call, cst.Call) and call.func is parent):
                continue
            if self._elsewhere_draw(call) and not any(
                o.cut for a in call.args for o in origins(flow, a.value)
            ):
                return True
        return False

    def _draws(self, call: cst.CSTNode) -> bool:
        if not isinstance(call, cst.Call):
            return False
        return any(
            n.startswith(("numpy.random.", "random.")) or n in _TORCH_DRAWS
            for n in self.qualified_names(call.func)
        )
