"""One loader factory, two kinds of loaders: classified at each call of the factory.

thunlp/OpenNRE@8e42fd7 (SentenceRELoader): one function builds the training loader
(`shuffle=True`) and the evaluation loader (`shuffle=False`). Followed through the factory,
the one `DataLoader(...)` is iterated by a training loop and by an evaluation loop; as a
training loader it was sharded for both, so each rank predicted half the evaluation set and
the scoring, which reads the predictions by position against the whole set, raised
IndexError on every rank.

So the calls of the factory are classified by how their loaders are used: a call whose
loaders are only iterated in evaluation context (`torch.no_grad()`, after `.eval()`) is an
evaluation call. When a factory has both kinds of calls, it gets a keyword parameter
`ddp_shard=True`; its DataLoader is sharded only when it is true (the sampler, shuffle and
per-rank batch each chosen by it), and the evaluation calls pass `ddp_shard=False`: their
loaders are built whole, as in the original, every rank goes through all of it and gets
the original's figures (DP015 says so). Training is planned on the training calls' loops
alone (set_epoch, summed figures).

A factory in another module than its calls (OpenNRE's own layout: SentenceRELoader in
framework/data_loader.py, called in framework/sentence_re.py with the loaders kept on
`self.train_loader`...) is classified on the importer's side (data/imported.py): a call
passing False to the factory's `shuffle` parameter whose loader no training loop there
iterates passes `ddp_shard=False`, and the program migrates the factory's module again,
told (state.loaders.evaluation_factories) to give the factory the parameter. Returning the
loader, with no sampler of its own; anything else is sharded as before.

A method of an experiment class is such a factory too (zhouhaoyi/Informer2020@29f2a73:
`self._get_data(flag="train")`, `"val"`, `"test"`, each returning `(dataset, loader)` and
unpacked at the call): the calls are found by the method's name on `self`, the loader by
its place in the returned tuple. Before, the loops over them were not found, every loader
was sharded as a training loader, and the validation mean that decides early stopping was
each rank's own: the ranks stopped apart (one left waiting in the all-reduce).

One epoch function for both kinds of passes (Cyanogenoid/pytorch-vqa@8ff1afa: `run(net,
loader, ..., train=False)`, the step under `if train:`; class E1, docs/real-world.md stop 29,
helper m): the one loop trains, so every loader it is given was taken for a training
loader, and the validation loader, built by the same factory (`get_loader(val=True)`), was
sharded: 8 of 16 answers saved, no warning. A loop is therefore classified per call of its
function: when every backward of the loop is guarded by a parameter (`if train:`, `if mode
== "train":`) and the call that brings the loader in passes a value that switches the guard
off (`train=False`, the default False, `mode="val"`), the loop evaluates that loader.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import PositionProvider

from dp2ddp.transforms._support.nodes import ModuleNodes, enclosing_function, keyword, walk
from dp2ddp.transforms.data.batch_shard import ShardEdit, is_sampler_shard
from dp2ddp.transforms.data.factory_wrappers import told_slots
from dp2ddp.transforms.data.flow import Path
from dp2ddp.transforms.data.handoffs import fed_name
from dp2ddp.transforms.data.plan import EVAL_NAME, LINE_LIMIT, SHARD_FLAG, TRAIN_NAME, Loader
from dp2ddp.transforms.data.split_loaders import SplitLoaders

if TYPE_CHECKING:
    from dp2ddp.result import LoaderExport
    from dp2ddp.transforms.data import ShardDataLoaders

FLAG = SHARD_FLAG


@dataclass
class _Factory:
    function: cst.FunctionDef
    evaluation: list[cst.Call] = field(default_factory=list)  # calls building eval loaders


class FactorySites:
    """Finds factories of both kinds of loaders and plans their edits."""

    def __init__(self, transform: ShardDataLoaders) -> None:
        self.t = transform
        #: loader call -> its factory, for factories with training and evaluation calls
        self._factories: dict[cst.Call, _Factory] = {}
        self._functions: set[cst.FunctionDef] = set()
        self._evaluation_calls: set[cst.Call] = set()
        #: calls of another module's factory in a wrapper: they pass `ddp_shard=ddp_shard`
        self._forwarding: set[cst.Call] = set()
        #: calls of a wrapper of this module (`self._get_data(flag="train")`) that return the
        #: sharded loader of another module's factory (imported_sites): their loops' figures
        #: are this rank's share (data/imported.py).
        self.forwarded: set[cst.Call] = set()
        #: one call building a loader per split, its splits decided by their loops
        self.splits = SplitLoaders(transform)

    def evaluation_call(
        self, call: cst.Call, factory: str, why: str = "", sample: bool = False
    ) -> None:
        """A call of another module's factory that builds an evaluation loader
        (data/imported.py): it passes ddp_shard=False. `why`: the loops of another module
        it is handed to, where they decided it (handoffs.handed_on). `sample`: its loader
        gives one fixed batch only (sample_roles.fetched_once): whole, as the original
        fetched it, with no figure to say."""
        if call in self._evaluation_calls:
            return
        self._evaluation_calls.add(call)
        if sample:
            self.t.record(
                call,
                f"{factory}() also builds training loaders; this one gives a fixed batch "
                f"once (next(iter(...))): built whole ({FLAG}=False), the batch the "
                "original fetched",
            )
            return
        because = f" ({why}, where its figures are not summed over the ranks)" if why else ""
        self.t.warn(
            call,
            "DP015",
            f"{factory}() also builds training loaders; this evaluation loader{because} is "
            f"left unsharded ({FLAG}=False): every rank goes through all of it",
        )

    def imported_sites(
        self, nodes: ModuleNodes, exported: tuple[LoaderExport, ...]
    ) -> tuple[set[cst.Call], dict[cst.Call | None, LoaderExport]]:
        """Calls that build another module's loader here, classified by their loops: (the
        evaluation calls, the training calls of a wrapper with the export each returns: an
        epoch loop placing set_epoch around it counts for that export, so the factory's
        module says no DP011 "no loop in this module" (ETSformer@082555c, stop 63 v2)).
        A call is an evaluation call
        when loops of this module iterate its loader and every one evaluates (data/
        evaluation's _evaluates: `eval()`, `no_grad()`, a figure deciding early stopping);
        a training call when one of them trains.

        The factory is called here directly (`data_provider(args, "val")`), or through a
        function or method of this module that returns its loader (`self._get_data(flag)`
        returning `data_provider(self.args, flag)`'s `(dataset, loader)`: the layout of the
        experiment frameworks descended from zhouhaoyi/Informer2020@29f2a73). A wrapper
        with both kinds of calls takes `ddp_shard=True` and hands it on to the factory; its
        evaluation calls pass `ddp_shard=False` (DP015), and the program tells the
        factory's module to take the parameter (state.evaluation_factories), so the loader
        is built whole there as the original built it. Before, every loader of such a
        factory was sharded: the validation mean deciding early stopping was each rank's
        own, and the ranks stopped apart."""
        t = self.t
        # A wrapper of a factory's items takes no ddp_shard (factory_wrappers.py)
        factories = tuple(e for e in exported if e.function and not e.via and not e.branched)
        if not factories:
            return set(), {}
        #: a function of this module -> (the factory's call in it, the export, the slot of
        #: its own return that holds the loader: (position, arity))
        wrappers: dict[cst.FunctionDef, tuple[cst.Call, LoaderExport, int | None, int | None]]
        wrappers = {}
        for function in nodes.of(cst.FunctionDef):
            if any(
                isinstance(p, cst.Param) and p.name.value == FLAG for p in walk(function.params)
            ):
                continue
            for node in walk(function.body, skip_scopes=True):
                if not isinstance(node, cst.Return) or node.value is None:
                    continue
                returned = node.value
                items = returned.elements if isinstance(returned, cst.Tuple) else None
                values = [e.value for e in items] if items is not None else [returned]
                for position, value in enumerate(values):
                    for inner, export in self._factory_calls(value, factories):
                        if enclosing_function(inner, t) is function:
                            wrappers[function] = (
                                inner,
                                export,
                                position if items is not None else None,
                                len(values) if items is not None else None,
                            )
        #: a call building a loader -> the kinds of the loops over it ("train", "eval"),
        #: and the wrapper it calls (None: the factory itself)
        kinds: dict[cst.Call, set[str]] = {}
        owner_of: dict[cst.Call, cst.FunctionDef | None] = {}
        sites = {f: set(t._callers(f)) for f in wrappers}
        for loop in nodes.of(cst.For):
            for expr in t._iterated_through_names(loop.iter):
                for origin in t._origins(expr, (), 0):
                    kind = self._kind(loop, origin.path)
                    site = origin.call
                    if site is None:
                        continue
                    for function, (_, _, *slot) in wrappers.items():
                        if site in sites[function] and [origin.position, origin.arity] == slot:
                            kinds.setdefault(site, set()).add(kind)
                            owner_of[site] = function
                    if site not in owner_of and t._is_exported(origin, factories):
                        kinds.setdefault(site, set()).add(kind)
                        owner_of[site] = None
        evaluation: set[cst.Call] = set()
        training: set[cst.Call] = set()
        for site, found in kinds.items():
            owner = owner_of[site]
            flagged = found <= {"eval", "other"} and marks_evaluation(site)
            if found != {"eval"} and not flagged:
                if "train" in found and owner is not None:
                    training.add(site)
            elif owner is None or any("train" in kinds.get(s, ()) for s in sites[owner]):
                evaluation.add(site)  # the factory's own call, or a wrapper of both kinds
        wrapped: set[cst.FunctionDef] = set()
        for site in sorted(evaluation, key=t._line):
            self.evaluation_call(site, t.code(site.func))
            owner = owner_of[site]
            if owner is not None:
                wrapped.add(owner)
                export = wrappers[owner][1]
            else:
                export = next(e for e in factories if self._names(site, e))
            name = f"{export.module}.{export.name}"
            if name not in t.state.evaluation_factories:
                t.state.evaluation_factories.append(name)
        for function in wrapped:
            self._functions.add(function)
            self._forwarding.add(wrappers[function][0])
        trained: dict[cst.Call | None, LoaderExport] = {
            c: wrappers[w][1] for c in training if (w := owner_of[c]) is not None and w in wrapped
        }
        self.forwarded = {
            site for site, owner in owner_of.items() if owner is not None and site not in evaluation
        }
        return evaluation, trained

    def _kind(self, loop: cst.For, path: Path) -> str:
        """`train`, `eval` or `other` for `loop` iterating a loader that came in through the
        calls of `path`: a training loop whose backward a parameter switches off at the call
        evaluates (`run(net, val_loader, train=False)`)."""
        t = self.t
        if t._trains(loop):
            return "eval" if t._guard_passed(loop, path) is False else "train"
        return "eval" if t._evaluates(loop) else "other"

    def _factory_calls(
        self, value: cst.BaseExpression, factories: tuple[LoaderExport, ...]
    ) -> list[tuple[cst.Call, LoaderExport]]:
        """The calls of an exported factory `value` is (or a name bound from), with the
        export whose loader slot it holds."""
        t = self.t
        if isinstance(value, cst.Call):
            origins = [t._call_origin(value, None, None)]
        elif isinstance(value, cst.Name):
            origins = t._origins(value, (), 0)
        else:
            return []
        found = []
        for origin in origins:
            for export in factories:
                if origin.call is not None and t._is_exported(origin, (export,)):
                    found.append((origin.call, export))
        return found

    def _names(self, call: cst.Call, export: LoaderExport) -> bool:
        return self.t._is_exported(
            self.t._call_origin(call, export.position, export.arity), (export,)
        )

    def split(self, loaders: dict[cst.Call, Loader]) -> None:
        """Keep only the training calls' loops on each factory's loader (the loaders
        sharded through their own sampler: split_shards)."""
        told, _ = self._told()
        self.splits.split(loaders)
        self.split_shards(self.t._shards, self.t._sampler_sharded)
        self.split_own_samplers()
        for loader in loaders.values():
            function = enclosing_function(loader.call, self.t)
            if function is None or loader.own is not None:
                continue
            if not self._returns(function, loader) and (
                loader.loops or not self._returns_holder(function, loader)
            ):
                continue
            if "batch_sampler" in loader.args or any(
                isinstance(p, cst.Param) and p.name.value == FLAG for p in walk(function.params)
            ):
                continue
            if fed_name(self.t, function)[0] in told:
                # Another module calls it for an evaluation loader (ddp_shard=False there).
                self._factories[loader.call] = _Factory(function, [])
                self._functions.add(function)
                continue
            sites = self.t._callers(function)
            chain: list[tuple[cst.FunctionDef, cst.Call]] = []  # wrappers, innermost first
            while len(sites) == 1 and len(chain) < 4:
                outer = enclosing_function(sites[0], self.t)
                if outer is None or outer is function or not self._hands_back(outer, sites[0]):
                    break
                chain.append((outer, sites[0]))
                sites = self.t._callers(outer)
            if len(sites) < 2:
                continue
            if not loader.loops:
                if not chain:
                    self._split_by_shuffle(loader, function, sites)
                continue
            ordered = self._evaluation_sites(loader, sites)
            if not ordered:
                continue
            self._factories[loader.call] = _Factory(function, ordered)
            self._functions.add(function)
            self._evaluation_calls.update(ordered)
            for outer, site in chain:
                self._functions.add(outer)
                self._forwarding.add(site)

    def _evaluation_sites(self, loader: Loader, sites: list[cst.Call]) -> list[cst.Call]:
        """The calls of `loader`'s factory whose loops only evaluate, in order, where others
        train (else none); the loader keeps the loops of the training calls only."""
        found = {site: Loader(site, {}, *self.t._binding(site), None) for site in sites}
        evaluation: set[cst.Call] = set()
        training: set[cst.Call] = set()
        loops_of: dict[int, set[cst.Call]] = {}
        for index, (loop, expr, _) in enumerate(loader.loops):
            resolved = self.t._resolve(expr, found, 0)
            loops_of[index] = {call for call, _ in resolved}
            for call, path in resolved:
                off = self.t._guard_passed(loop, path) is False
                flagged = marks_evaluation(call) and not self.t._trains(loop)
                kind = evaluation if off or flagged or self.t._evaluates(loop) else training
                kind.add(call)
        evaluation -= training
        if not evaluation or not training:
            return []
        loader.loops = [
            entry
            for index, entry in enumerate(loader.loops)
            if not loops_of[index] or not loops_of[index] <= evaluation
        ]
        return [site for site in sites if site in evaluation]

    def split_own_samplers(self) -> None:
        """A factory's loader sharded through its own (batch) sampler whose calls build
        training loaders and loaders only evaluated (imtiazziko/LaplacianShot@5de2612's
        `get_dataloader(..., sample=...)`: the episodic `batch_sampler=CategoriesSampler`
        loader for meta-training and for meta-validation, round 23): the shard is made
        conditional on ddp_shard and the evaluation calls pass False, so they evaluate
        whole episodes as the original did. Before, every episode was cut into per-rank
        parts, and the evaluation, which reads the supports and the queries of an episode
        by position, scored rank 0's part against the wrong rows: its figure, and the
        checkpoint chosen by it, changed, with no warning."""
        t = self.t
        for call, loader in t._sampler_sharded.items():
            shard = t._shards.get(call)
            function = enclosing_function(call, t)
            if (
                shard is None
                or shard.arguments is not None
                or isinstance(shard.wrapper, cst.IfExp)
                or function is None
                or not loader.loops
                or not self._returns(function, loader)
            ):
                continue
            sites = t._callers(function)
            ordered = self._evaluation_sites(loader, sites) if len(sites) > 1 else []
            if not ordered:
                continue
            t._shards[call] = replace(shard, wrapper=_flagged(shard, call))
            self._functions.add(function)
            self._evaluation_calls.update(ordered)
            name = function.name.value
            t.record(
                call,
                f"{name}() also builds evaluation loaders: {FLAG}=False at those calls keeps "
                "their own sampler's batches whole, as the original did",
            )
            for site in ordered:
                self._said_whole(site)

    def _split_by_shuffle(
        self, loader: Loader, function: cst.FunctionDef, sites: list[cst.Call]
    ) -> None:
        """No loop over the factory's loader was followed (its loaders kept in a dict on
        `self`, read in another module: adntjr4/denoising_practice@b53363d's
        `_set_dataloader(cfg, batch_size, shuffle, num_workers)`, stop 59 v1-B), but the
        calls tell the kinds apart: the factory hands one of its parameters to the
        DataLoader's `shuffle=`, and every call gives it a literal, True at some calls and
        False at others. A False call builds an evaluation loader (DataParallel's
        validation and test loaders, read in order): built whole (ddp_shard=False, DP015),
        the True calls' sharded. Before, every call's loaders were sharded (DP029), the
        validation figures and the images named by position each rank's own."""
        index = loader.args.get("shuffle")
        value = loader.call.args[index].value if index is not None else None
        if not isinstance(value, cst.Name):
            return
        for site in sites:
            outer = enclosing_function(site, self.t)
            if outer is not None and (self._hands_back(outer, site) or self._returned(site)):
                return  # its loader leaves through another return: used elsewhere (DP084)
        kinds = [_literal_argument(site, function, value.value) for site in sites]
        if None in kinds or True not in kinds or False not in kinds:
            return
        ordered = [site for site, kind in zip(sites, kinds, strict=True) if kind is False]
        self._factories[loader.call] = _Factory(function, ordered)
        self._functions.add(function)
        self._evaluation_calls.update(ordered)

    def _returned(self, call: cst.Call) -> bool:
        """`call` is part of what a `return` statement returns (`return f(...), g(...)`)."""
        node = self.t.parent(call)
        while node is not None and not isinstance(node, (cst.FunctionDef, cst.Lambda)):
            if isinstance(node, cst.Return):
                return True
            node = self.t.parent(node)
        return False

    def classified(self, call: cst.Call) -> bool:
        """The loader `call` builds is a factory's whose calls were told apart: training
        calls sharded, evaluation calls whole (no DP029 for it)."""
        return call in self._factories

    def _returns_holder(self, function: cst.FunctionDef, loader: Loader) -> bool:
        """The factory stores the loader in an item of a name it returns (`loaders[key] =
        DataLoader(...)`, then `return loaders`)."""
        binding = loader.binding
        if not isinstance(binding, cst.Subscript) or not isinstance(binding.value, cst.Name):
            return False
        held = binding.value.value
        return any(
            isinstance(node, cst.Return)
            and isinstance(node.value, cst.Name)
            and node.value.value == held
            for node in walk(function.body, skip_scopes=True)
        )

    def split_shards(
        self, shards: dict[cst.Call, ShardEdit], loaders: dict[cst.Call, Loader]
    ) -> None:
        """A factory whose loader is sharded through its own sampler (`DataLoader(data,
        sampler=RandomSampler(data), ...)`, DdpSamplerShard) that another module calls for
        evaluation loaders (state.loaders.evaluation_factories, its loader exported:
        data/imported.py's export_shards): the sampler's shard and the per-rank batch are
        made conditional on ddp_shard, so those calls build the original's loader, whole.
        Class v2-E of stop 41 (songyingxin/Bert-TextClassification@284b632's
        convert_features_to_tensors for train, dev and test): before, every loader it
        built was sharded, and the dev accuracy choosing the checkpoint and the printed
        test figures were rank 0's half, silently."""
        told, _ = self._told()
        for call, loader in loaders.items():
            shard = shards.get(call)
            function = enclosing_function(call, self.t)
            if (
                shard is None
                or not is_sampler_shard(shard)
                or function is None
                or function.name.value not in told
                or not isinstance(self.t.parent(function), cst.Module)
                or not self._returns(function, loader)
            ):
                continue
            wrapper = _flagged(shard, call)
            batch = shard.batch
            if batch is not None:
                kept = call.args[batch[0]].value.deep_clone()
                batch = (batch[0], cst.IfExp(test=cst.Name(FLAG), body=batch[1], orelse=kept))
            shards[call] = replace(shard, wrapper=wrapper, batch=batch)
            self._functions.add(function)
            self.t.record(
                call,
                f"{function.name.value}() also builds evaluation loaders: {FLAG}=False at "
                "those calls keeps their own sampler and batch, whole, as the original did",
            )

    def _told(self) -> tuple[set[str], set[cst.Call]]:
        """The factories other modules call for evaluation loaders, also through an item
        of a wrapper's tuple (`get_loaders#1`: factory_wrappers.told_slots), and the
        wrappers' calls that then build an item whole; the calls are said once (DP015)."""
        told = self.t.state.loaders.evaluation_factories
        factories, calls = told_slots(self.t, self.t._module_node, told)
        for call in sorted(calls - self._evaluation_calls, key=self.t._line):
            self.t.warn(
                call,
                "DP015",
                f"{self.t.code(call.func)}() also builds training loaders; this loader, "
                "which another module only evaluates, is left unsharded "
                f"({FLAG}=False): every rank goes through all of it",
            )
        self._evaluation_calls |= calls
        return {name for name in told if "#" not in name} | factories, calls

    def _hands_back(self, outer: cst.FunctionDef, call: cst.Call) -> bool:
        """`outer` returns what `call` returns: `return call(...)`, or the names it binds
        (`data_set, data_loader = data_provider(args, flag)` then `return data_set,
        data_loader`): a wrapper of a factory, whose own calls are the factory's sites (a
        factory called once, from a method of an experiment class: the layout of
        zhouhaoyi/Informer2020@29f2a73's descendants)."""
        parent = self.t.parent(call)
        if isinstance(parent, cst.Return):
            return True
        if not (isinstance(parent, cst.Assign) and parent.value is call):
            return False
        bound = {n.value for t in parent.targets for n in walk(t.target) if isinstance(n, cst.Name)}
        for node in walk(outer.body, skip_scopes=True):
            if isinstance(node, cst.Return) and node.value is not None:
                returned = {n.value for n in walk(node.value) if isinstance(n, cst.Name)}
                if returned and returned <= bound:
                    return True
        return False

    def _returns(self, function: cst.FunctionDef, loader: Loader) -> bool:
        """The factory returns the loader: `return DataLoader(...)` (also as an item of a
        returned tuple, `return DataLoader(...), data`), or its name."""
        parent = self.t.parent(loader.call)
        items = self.t.parent(parent) if isinstance(parent, cst.Element) else None
        if isinstance(items, cst.Tuple):  # its one loader (`return DataLoader(...), data`)
            others = [e.value for e in items.elements if e is not parent]
            if any("Loader" in self.t.code(o) for o in others):
                return False
            parent = self.t.parent(items)
        if isinstance(parent, cst.Return):
            return True
        name = loader.binding
        if not isinstance(name, cst.Name):
            return False
        for node in walk(function.body, skip_scopes=True):
            if not isinstance(node, cst.Return):
                continue
            # `return loader`, or `return dataset, loader` (unpacked at the calls)
            values = (
                [e.value for e in node.value.elements]
                if isinstance(node.value, (cst.Tuple, cst.List))
                else [node.value]
            )
            if any(isinstance(v, cst.Name) and v.value == name.value for v in values):
                return True
        return False

    def finish(self, loader: Loader) -> None:
        """The planned edit of a factory's loader, made conditional on ddp_shard."""
        factory = self._factories.get(loader.call)
        edit = self.t._edits.get(loader.call)
        self.splits.finish(loader, edit)
        if factory is None or edit is None or edit.sampler is None:
            return
        flag = cst.Name(FLAG)
        args = loader.call.args
        edit.sampler = cst.IfExp(test=flag, body=edit.sampler, orelse=cst.Name("None"))
        shuffle = loader.args.get("shuffle")
        if shuffle is not None and edit.replace == shuffle:
            # The shuffle stays, for the whole loaders; the sampler takes `sampler=None`'s
            # place, or comes last.
            edit.replace, edit.drop = edit.drop, None
            kept = cst.IfExp(test=flag, body=cst.Name("None"), orelse=args[shuffle].value)
            edit.extra.append((shuffle, kept))
        if edit.batch is not None:
            index, per_rank = edit.batch
            edit.batch = (index, cst.IfExp(test=flag, body=per_rank, orelse=args[index].value))
        name = factory.function.name.value
        self.t.record(
            loader.call,
            f"{name}() also builds evaluation loaders: {FLAG}=False at those calls builds "
            "them whole, as the original did",
        )
        for site in factory.evaluation:
            self._said_whole(site)

    def _said_whole(self, site: cst.Call) -> None:
        """DP015 at an evaluation call of a factory of both kinds: built whole."""
        self.t.warn(
            site,
            "DP015",
            f"{self.t.code(site.func)}() also builds training loaders; this evaluation "
            f"loader is left unsharded ({FLAG}=False): every rank goes through all of it",
        )

    def spread(self, original: cst.Call, rewritten: cst.Call) -> bool:
        """A factory's one-line DataLoader call that its conditional arguments push past the
        line limit: one argument per line then."""
        if original not in self._factories and original not in self.splits.decided:
            return False
        arguments = "".join(self.t.code(a) for a in original.args).strip()
        if "\n" in arguments or "#" in arguments:
            return False
        start = self.t.get_metadata(PositionProvider, original).start.column
        return start + len(self.t.code(rewritten)) > LINE_LIMIT

    def keep_whole(self, call: cst.Call) -> None:
        """`call` passes ddp_shard=False (an evaluation instance of a sharding DataLoader
        subclass: subclass_instances.py)."""
        self._evaluation_calls.add(call)

    def take_flag(self, function: cst.FunctionDef) -> None:
        """`function` takes `ddp_shard=True` (a sharding DataLoader subclass's __init__)."""
        self._functions.add(function)

    def leave_call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        """An evaluation call of a factory passes ddp_shard=False; a wrapper's call of
        another module's factory hands its own flag on."""
        if original in self._forwarding:
            args = list(updated.args)
            return updated.with_changes(args=[*args, keyword(FLAG, cst.Name(FLAG), like=args)])
        if original not in self._evaluation_calls:
            return updated
        args = list(updated.args)
        return updated.with_changes(args=[*args, keyword(FLAG, cst.Name("False"), like=args)])

    def leave_function(
        self, original: cst.FunctionDef, updated: cst.FunctionDef
    ) -> cst.FunctionDef:
        """The factory takes `ddp_shard=True` (keyword-only after a `*`)."""
        if original not in self._functions:
            return updated
        params = updated.params
        flag = cst.Param(
            name=cst.Name(FLAG),
            default=cst.Name("True"),
            equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""),
                whitespace_after=cst.SimpleWhitespace(""),
            ),
        )
        if isinstance(params.star_arg, cst.MaybeSentinel) and not params.kwonly_params:
            params = params.with_changes(params=[*params.params, flag])
        else:
            params = params.with_changes(kwonly_params=[*params.kwonly_params, flag])
        return updated.with_changes(params=params)


def _flagged(shard: ShardEdit, call: cst.Call) -> cst.IfExp:
    """The shard's wrapper under the factory's flag: `<it> if ddp_shard else <the loader's
    own sampler>`."""
    original = call.args[shard.replace].value.deep_clone()
    return cst.IfExp(test=cst.Name(FLAG), body=shard.wrapper, orelse=original)


def marks_evaluation(call: cst.Call) -> bool:
    """The call's own flag names an evaluation split: `get_loader(val=True)`, `train=False`,
    `split="test"`, `data_provider(args, "val")`. Trusted only for a loader no loop trains
    on: a loop that neither trains nor evaluates (a bare predict loop) is then an evaluation."""
    for arg in call.args:
        value, keyword = arg.value, arg.keyword
        if isinstance(value, cst.SimpleString):
            text = value.evaluated_value
            if isinstance(text, str) and EVAL_NAME.search(text) and "/" not in text:
                return True
        elif isinstance(value, cst.Name) and keyword is not None:
            if value.value == "True" and EVAL_NAME.search(keyword.value):
                return True
            if value.value == "False" and TRAIN_NAME.search(keyword.value):
                return True
    return False


def _literal_argument(site: cst.Call, function: cst.FunctionDef, param: str) -> bool | None:
    """The literal True or False `site` (a call of `function`, as `f(...)` or `self.f(...)`)
    binds to the parameter `param`, by position, keyword or the default; None when it is
    anything else or cannot be told (a `*args`/`**kwargs` at the call)."""
    params = list(function.params.params)
    if params and params[0].name.value in ("self", "cls") and isinstance(site.func, cst.Attribute):
        params = params[1:]
    names = [p.name.value for p in params]
    if param not in names or any(arg.star for arg in site.args):
        return None
    position = names.index(param)
    value: cst.BaseExpression | None = params[position].default
    for index, arg in enumerate(site.args):
        if (arg.keyword is None and index == position) or (
            arg.keyword is not None and arg.keyword.value == param
        ):
            value = arg.value
    if isinstance(value, cst.Name) and value.value in ("True", "False"):
        return value.value == "True"
    return None
