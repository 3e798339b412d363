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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import PositionProvider

from dp2ddp.transforms._support.nodes import enclosing_function, keyword, walk
from dp2ddp.transforms.data.plan import LINE_LIMIT, SHARD_FLAG, Loader

if TYPE_CHECKING:
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

    def evaluation_call(self, call: cst.Call, factory: str) -> None:
        """A call of another module's factory that builds an evaluation loader
        (data/imported.py): it passes ddp_shard=False."""
        if call in self._evaluation_calls:
            return
        self._evaluation_calls.add(call)
        self.t.warn(
            call,
            "DP015",
            f"{factory}() also builds training loaders; this evaluation loader is left "
            f"unsharded ({FLAG}=False): every rank goes through all of it",
        )

    def split(self, loaders: dict[cst.Call, Loader]) -> None:
        """Keep only the training calls' loops on each factory's loader."""
        told = self.t.state.loaders.evaluation_factories
        for loader in loaders.values():
            function = enclosing_function(loader.call, self.t)
            if function is None or loader.own is not None or not self._returns(function, loader):
                continue
            if "batch_sampler" in loader.args or any(
                isinstance(p, cst.Param) and p.name.value == FLAG for p in walk(function.params)
            ):
                continue
            if function.name.value in told and isinstance(self.t.parent(function), cst.Module):
                # Another module calls it for an evaluation loader (ddp_shard=False there).
                self._factories[loader.call] = _Factory(function, [])
                self._functions.add(function)
                continue
            sites = self.t._callers(function)
            if len(sites) < 2:
                continue
            found = {site: Loader(site, {}, *self.t._binding(site), None) for site in sites}
            evaluation: set[cst.Call] = set()
            training: set[cst.Call] = set()
            loops_of: dict[int, set[cst.Call]] = {}
            for index, (loop, expr, _) in enumerate(loader.loops):
                calls = {call for call, _ in self.t._resolve(expr, found, 0)}
                loops_of[index] = calls
                kind = evaluation if self.t._evaluates(loop) else training
                kind.update(calls)
            evaluation -= training
            if not evaluation or not training:
                continue
            loader.loops = [
                entry
                for index, entry in enumerate(loader.loops)
                if not loops_of[index] or not loops_of[index] <= evaluation
            ]
            ordered = [site for site in sites if site in evaluation]
            self._factories[loader.call] = _Factory(function, ordered)
            self._functions.add(function)
            self._evaluation_calls.update(ordered)

    def _returns(self, function: cst.FunctionDef, loader: Loader) -> bool:
        """The factory returns the loader: `return DataLoader(...)`, or its name."""
        if isinstance(self.t.parent(loader.call), cst.Return):
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
                if isinstance(node.value, cst.Tuple)
                else [node.value]
            )
            if any(isinstance(v, cst.Name) and v.value == name.value for v in values):
                return True
        return False

    def finish(self, loader: Loader) -> None:
        """The planned edit of a factory's loader, made conditional on ddp_shard."""
        factory = self._factories.get(loader.call)
        edit = self.t._edits.get(loader.call)
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
            self.t.warn(
                site,
                "DP015",
                f"{self.t.code(site.func)}() also builds training loaders; this evaluation "
                f"loader is left unsharded ({FLAG}=False): every rank goes through all of it",
            )

    def spread(self, original: cst.Call, rewritten: cst.Call) -> bool:
        """A factory's one-line DataLoader call that its conditional arguments push past the
        line limit: one argument per line then."""
        if original not in self._factories:
            return False
        arguments = "".join(self.t.code(a) for a in original.args).strip()
        if "\n" in arguments or "#" in arguments:
            return False
        start = self.t.get_metadata(PositionProvider, original).start.column
        return start + len(self.t.code(rewritten)) > LINE_LIMIT

    def leave_call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        """An evaluation call of a factory passes ddp_shard=False."""
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
