"""set_epoch(epoch) placed in the epoch loop around the loop over a shuffled loader.

Where no such place is found (no loop around the loop over the loader, a `while` loop, the
loader reached under another name, a loop variable that is no epoch number, a counter that
restarts because another loop repeats its loop...), the loader's
sampler becomes DdpDistributedSampler(..., advance_epoch=True), which advances its epoch on
each pass by itself (DP011 says so, for review).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.transforms._support.nodes import (
    bare,
    counts,
    enclosing_function,
    inside,
    is_simple,
    module_of,
    name_of,
    walk,
)
from dp2ddp.transforms.data.batch_size import LoaderBatchSize
from dp2ddp.transforms.data.handoffs import handed_on
from dp2ddp.transforms.data.plan import (
    Loader,
)

if TYPE_CHECKING:
    from dp2ddp.transforms.data.factory_sites import FactorySites


class LoaderSetEpoch(LoaderBatchSize):
    """Where `sampler.set_epoch(epoch)` goes."""

    _factory_sites: FactorySites

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        #: (epoch loop, loader name, its statement inside the loop) -> why no set_epoch
        self._placed: dict[tuple[cst.CSTNode, str, cst.CSTNode | None], str | None] = {}

    # -- set_epoch ------------------------------------------------------------------------
    def _plan_set_epoch(
        self, loader: Loader, exported: bool = False, importers_set: bool = False
    ) -> bool:
        """Place set_epoch; False where some pass over the loader has no place for it (the
        caller then gives the loader a sampler that advances its own epoch). `exported`: a
        library's loader its importers are told about (set_epoch in their epoch loops);
        `importers_set`: they placed it around every loop over it (ProgramLoaders.
        epochs_set), so a loader this module iterates nowhere needs no DP011: its sampler
        still advances by itself on a pass that none numbers (an explicit set_epoch wins)."""
        found = unknown = again = False
        failures: list[tuple[cst.CSTNode, str]] = []
        for loop, expr, path in loader.loops:
            for epoch_loop, receiver in self._loops_around(loop, expr, path, 0):
                if not self._passes_this(receiver, loader):
                    continue  # another pass's loader (`for name, loader in [...]`)
                if epoch_loop is None:
                    unknown = True
                elif not isinstance(epoch_loop, cst.Module):  # the module: a single pass
                    found = True
                    failure = self._keyed_elsewhere(loop, epoch_loop, receiver)
                    if failure is None:
                        failure = self._place_set_epoch(loader.statement, epoch_loop, receiver)
                        again = again or failure is None and self._runs_again(epoch_loop)
                    if failure is not None and (epoch_loop, failure) not in failures:
                        failures.append((epoch_loop, failure))
        if not loader.loops:
            found, unknown = self._plan_handed_epochs(loader, failures)
        if not found and (unknown or not loader.loops):
            label = self.code(loader.binding) if loader.binding is not None else "this loader"
            where = (
                f"no loop found around the loop over {label}"
                if loader.loops
                else f"no loop over {label} found"
            )
            if exported:
                where = f"no loop over {label} in this module (importers that iterate it in "
                where += "an epoch loop call set_epoch there)"
            if exported and importers_set and not loader.loops:
                self.record(
                    loader.call, f"{label}: its importers call set_epoch in their epoch loops"
                )
                return False
            failures.insert(0, (loader.call, where))
        rebuilt = self._rebuilt_in(loader.call)
        advances = "its sampler advances its epoch on each pass"
        if rebuilt is not None:
            line = self.input_position(rebuilt)[0]
            builder = enclosing_function(loader.call, self)
            through = (
                f" (each call of {builder.name.value}())"
                if builder is not None and not inside(rebuilt, builder, self)
                else ""
            )
            advances += (
                f", and the loader is built anew in the loop at line {line}{through}:"
                " each new sampler starts at the epoch after its predecessor's last pass"
            )
        for node, detail in failures:
            self.warn(node, "DP011", f"{detail}; {advances}")
        if not loader.loops and not found and not self._factory_sites.classified(loader.call):
            self._warn_unfollowed_builder(loader)
        return not failures and not again

    def _runs_again(self, epoch_loop: cst.CSTNode) -> bool:
        """The function holding `epoch_loop` may run more than once (two calls of it here,
        or one in a loop): its epoch counter starts again at each call, and the set_epoch
        placed there would repeat the orders of the calls before (round 30, lmbxmu/
        ABCPruner@3233593: each search candidate's `calculationFitness()` trained its own
        epochs over one loader, every candidate on the same orders, unsaid). The loader
        then gets DdpDistributedSampler, whose set_epoch moves past the epochs drawn."""
        flow = view(self._module_node)
        function = flow.function_around(epoch_loop)
        if function is None:
            return False
        sites = flow.call_sites(function)
        if len(sites) > 1:
            return True
        for site in sites:
            for above in flow.ancestors(site):
                if isinstance(above, (cst.For, cst.While)):
                    return True
                if isinstance(above, (cst.FunctionDef, cst.Lambda)):
                    break
        return False

    def _passes_this(self, receiver: cst.BaseExpression | None, loader: Loader) -> bool:
        """False for a receiver one pass of a loop over a literal of loaders hands on
        (flow.py's `_passed_values`) that is not `loader`: the dev loader of `for mode,
        loader in [("Train", train_loader), ("Dev", dev_loader)]` gets no set_epoch of the
        training loader's."""
        if receiver is None or id(receiver) not in self._pass_receivers:
            return True
        return bool(self._resolve(receiver, {loader.call: loader}, 0))

    def _warn_unfollowed_builder(self, loader: Loader) -> None:
        """DP029: no loop over the loader was followed and its builder is called at several
        places of this module (`self._set_dataloader(self.train_cfg, ...)` and
        `(self.val_cfg, shuffle=False, ...)`): every call's loaders are sharded as training
        loaders, an evaluation call's too, whose figures and files are then this rank's.
        Classified calls (data/factory_sites.py) never get here: their loops were found."""
        builder = enclosing_function(loader.call, self)
        if builder is None:
            return
        name = builder.name.value
        sites = [
            call
            for call in walk(module_of(builder, self))
            if isinstance(call, cst.Call)
            and (
                (isinstance(call.func, cst.Name) and call.func.value == name)
                or (
                    isinstance(call.func, cst.Attribute)
                    and call.func.attr.value == name
                    and isinstance(call.func.value, cst.Name)
                    and call.func.value.value in ("self", "cls")
                )
            )
        ]
        # a call passing a literal False (`shuffle=False`: OpenNRE's and this repository's
        # evaluation calls) tells an evaluation call apart; a generator yields batches, whose
        # passes over its own loader are its own (batches_generator_own_loader)
        evaluated = any(
            isinstance(arg.value, cst.Name) and arg.value.value == "False"
            for site in sites
            for arg in site.args
        )
        # a call in a loop handing on the flag the builder passes as `shuffle=` (`for
        # mode, train_flag in zip(modes, [True, False, False])`: VIPL-SLP/VAC_CSLR@71f3e03,
        # round 13 v3-C): as many calls as the loop makes, the flag telling them apart
        flag = self._shuffle_parameter(loader.call, builder)
        looped = [site for site in sites if flag is not None and self._called_in_loop(site)]
        several = len(sites) >= 2 or bool(looped)
        if not several or not (evaluated or looped):
            return
        if any(isinstance(n, cst.Yield) for n in walk(builder)):
            return
        lines = ", ".join(str(self.input_position(site)[0]) for site in sites)
        calls = f"{len(sites)} calls (lines {lines})"
        if looped:
            where = f"line {lines}" if len(sites) == 1 else f"lines {lines}"
            calls = f"each call of a loop ({where}), `shuffle={flag}` telling them apart,"
        self.warn(
            loader.call,
            "DP029",
            f"{name}() builds this loader at {calls} and no loop over what it returns was "
            "followed: the loaders of every call are sharded as training loaders; where a "
            "call's are evaluated, each rank goes through its own share, and its figures "
            "and the files it names by position are this rank's",
        )

    @staticmethod
    def _shuffle_parameter(call: cst.Call, builder: cst.FunctionDef) -> str | None:
        """The builder's parameter the loader takes as `shuffle=` (`shuffle=train_flag`)."""
        params = {p.name.value for p in builder.params.params}
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == "shuffle":
                value = arg.value
                if isinstance(value, cst.Name) and value.value in params:
                    return value.value
        return None

    def _called_in_loop(self, node: cst.CSTNode) -> bool:
        """`node` runs in a `for`/`while` of its function (or of the module's top level)."""
        current = self.parent(node)
        while current is not None and not isinstance(current, (cst.FunctionDef, cst.Module)):
            if isinstance(current, (cst.For, cst.While)):
                return True
            current = self.parent(current)
        return False

    def _plan_handed_epochs(
        self, loader: Loader, failures: list[tuple[cst.CSTNode, str]]
    ) -> tuple[bool, bool]:
        """A loader no loop of this module iterates, handed to functions of other modules
        whose loops train on it (ProgramLoaders.consumers): where each such function makes
        one pass per call, the epoch loop around the call here numbers the passes, and
        set_epoch goes there (`for epoch in range(n): train_model(model, loader, opt)`);
        where its passes are not one per call (an epoch loop inside `fit(model, loader,
        epochs)`, a class's method), no loop here can number them: said, with where the
        loop is. (found, unknown) as for the loops of this module; before (stop 43), both
        got DP011 "no loop over loader found"."""
        only = {loader.call: loader}
        handed = [
            h
            for h in handed_on(self, lambda e: bool(self._resolve(e, only, 0)))
            if h.loops and all(role == "trains" for role, _, _ in h.loops)
        ]
        found = unknown = False
        label = self.code(loader.binding) if loader.binding is not None else "this loader"
        for each in handed:
            line = self.input_position(each.site)[0]
            if not all(once for _, _, once in each.loops):
                failures.append(
                    (
                        loader.call,
                        f"{label} is handed to {each.text()} at line {line}, whose passes "
                        "over it are not one per call: no epoch loop of this module numbers "
                        "them",
                    )
                )
                found = True
                continue
            for epoch_loop, receiver in self._loops_around(each.site, each.argument, (), 0):
                if epoch_loop is None:
                    unknown = True
                    continue
                found = True  # the module: one call, one pass
                if isinstance(epoch_loop, cst.Module):
                    continue
                failure = self._place_set_epoch(loader.statement, epoch_loop, receiver)
                if failure is not None and (epoch_loop, failure) not in failures:
                    failures.append((epoch_loop, failure))
        return found, unknown

    def _rebuilt_in(self, call: cst.Call) -> cst.For | cst.While | None:
        """The loop that runs the loader's construction again: around it in its own
        function (or module), or around a call of the function that builds it (`def
        make(): return DataLoader(...)` called in the epoch loop; a train function building
        its own loader, called each epoch). Each round builds a new sampler, whose first
        pass would be epoch 0 again."""
        for loop, _ in self._loops_around(call, None, (), 0):
            if isinstance(loop, (cst.For, cst.While)) and not self._one_per_item(loop, call):
                return loop
        return None

    def _one_per_item(self, loop: cst.For | cst.While, call: cst.Call) -> bool:
        """A `for` over items that are not counted (`for mode, flag in [("train", True),
        ("dev", False)]`, a dict's items; not `range(...)`) whose statement building the
        loader, or calling the function that builds it, reads the loop's target
        (`self.loaders[mode] = self.build_loader(sets[mode], flag)`): each item gets a
        loader of its own, built once, none built anew (stop 60's leftover, VIPL-SLP/
        VAC_CSLR@71f3e03's `load_data()`: DP011 said the train loader was "built anew in the
        loop" over the modes, and its sampler took the dev loader's epochs as its own)."""
        if not isinstance(loop, cst.For) or (
            isinstance(loop.iter, cst.Call) and name_of(loop.iter.func) == "range"
        ):
            return False
        targets = {n.value for n in walk(loop.target) if isinstance(n, cst.Name)}
        builder = enclosing_function(call, self)
        site: cst.CSTNode | None = call if inside(call, loop, self) else None
        if site is None and builder is not None:
            site = next(
                (
                    c
                    for c in walk(loop.body)
                    if isinstance(c, cst.Call) and name_of(c.func) == builder.name.value
                ),
                None,
            )
        statement = site
        while statement is not None and not isinstance(statement, cst.SimpleStatementLine):
            statement = self.parent(statement)
        if statement is None or not inside(statement, loop, self):
            return False
        return any(isinstance(n, cst.Name) and n.value in targets for n in walk(statement))

    def rebuilt_key(self, loader: Loader) -> str | None:
        """DdpDistributedSampler's `rebuilt` ("file:line"), whose samplers count the
        rebuilds: for the loaders over one dataset in one function (or module) of which one
        is built anew in a loop (`loader = iter(DataLoader(ds))` first, again in `except
        StopIteration:`), the line of the first; None where none is rebuilt."""
        scope = enclosing_function(loader.call, self)
        dataset = self._dataset_code(loader.call)
        siblings = [
            c
            for c in self._all_loaders
            if enclosing_function(c, self) is scope and self._dataset_code(c) == dataset
        ]
        if dataset is None or not any(self._rebuilt_in(c) for c in siblings):
            siblings = [loader.call]
            if self._rebuilt_in(loader.call) is None:
                return None
        line = min(self.input_position(c)[0] for c in siblings)
        name = "".join(c for c in os.path.basename(self.context.filename or "") if c not in '"\\')
        return f"{name}:{line}" if name else str(line)

    def _dataset_code(self, call: cst.Call) -> str | None:
        for arg in call.args:
            if arg.star:
                return None
            if arg.keyword is None or arg.keyword.value == "dataset":
                return self.code(arg.value)
        return None

    def _keyed_elsewhere(
        self, loop: cst.For, epoch_loop: cst.For | cst.While, receiver: cst.BaseExpression | None
    ) -> str | None:
        """Why `receiver` cannot be named in `epoch_loop`: it is an item read with a key
        that is a variable of the function around the loop over it (`loaders[split]` in
        `evaluate(split)`), which the epoch loop of the caller does not have; else None."""
        if receiver is None or enclosing_function(loop, self) is enclosing_function(
            epoch_loop, self
        ):
            return None
        for node in walk(receiver):
            if isinstance(node, cst.Subscript) and any(
                isinstance(e.slice, cst.Index) and not isinstance(e.slice.value, cst.SimpleString)
                for e in node.slice
            ):
                return f"the loader is {self.code(receiver)}, read with a key of another function"
        return None

    def _place_set_epoch(
        self,
        statement: cst.BaseStatement | None,
        loop: cst.For | cst.While,
        receiver: cst.BaseExpression | None,
    ) -> str | None:
        """`_insert_set_epoch` once per epoch loop and loader name (a name bound in several
        branches, one loader per data set, stop 33's rfs; the passes of one loader; an
        importer's loops): the same answer for each asker; a loader built inside the loop
        gets its own call after its statement. A binding in the loop that runs in some epochs
        only (`_unconditional`) leaves the loader bound before the loop in the others: a
        second call after the outermost statement that may skip it (bubbliiiing/yolov4-tiny-
        pytorch@1f2a5b9: `gen` built anew only when the backbone is unfrozen; with the call
        after the rebuild alone, the loader built before the loop repeated epoch 0's order
        in every epoch, stop 47 class v1-B); the first stays for passes inside that statement."""
        bound = self._bound_in(loop, receiver)
        statement = bound or statement
        within = statement if statement is not None and inside(statement, loop.body, self) else None
        key = (loop, self.code(receiver) if receiver is not None else "", within)
        if key not in self._placed:
            self._placed[key] = self._insert_set_epoch(statement, loop, receiver)
            outer = self._unconditional(bound, loop) if bound is not None else None
            if self._placed[key] is None and outer is not None and outer is not bound:
                self._insert_set_epoch(outer, loop, receiver)
        return self._placed[key]

    def _bound_in(
        self, loop: cst.For | cst.While, receiver: cst.BaseExpression | None
    ) -> cst.SimpleStatementLine | None:
        """The statement of `loop`'s body that binds the loader's name there (`loader =
        make()` in the epoch loop, the loader built by a function): set_epoch goes after
        it, not at the top, where the name is not bound yet or names last epoch's loader.
        The same for a name the loader is read with (`loaders[phase]` after `phase =
        "train"` in the epoch loop, round 24's zsyOAOA/VDNet@599c153: at the top, `phase`
        was unbound in the first epoch, UnboundLocalError on every rank, and named the last
        evaluation split in the others): after the latest such binding."""
        names = [receiver] if isinstance(receiver, cst.Name) else []
        if isinstance(receiver, cst.Subscript):
            names = [n for n in walk(receiver) if isinstance(n, cst.Name)]
        found: list[cst.SimpleStatementLine] = []
        for name in names:
            for referent in self.referents(name):
                if inside(referent.node, loop.body, self):
                    current: cst.CSTNode | None = referent.node
                    while current is not None and not isinstance(
                        current, (cst.SimpleStatementLine, cst.BaseCompoundStatement)
                    ):
                        current = self.parent(current)
                    if isinstance(current, cst.SimpleStatementLine):
                        found.append(current)
                        break
        return max(found, key=lambda s: self._position(s)) if found else None

    def _unconditional(
        self, statement: cst.SimpleStatementLine, loop: cst.For | cst.While
    ) -> cst.BaseStatement:
        """`statement`, or the outermost statement of `loop`'s body around it that may run
        it in some epochs only (`if`, `try`, `for`/`while`, `match`): after it, the name
        holds whichever loader the epoch uses."""
        found: cst.BaseStatement = statement
        current: cst.CSTNode | None = self.parent(statement)
        while current is not None and current is not loop:
            if isinstance(current, (cst.If, cst.Try, cst.For, cst.While, cst.Match)):
                found = current
            current = self.parent(current)
        return found

    def _insert_set_epoch(
        self,
        statement: cst.BaseStatement | None,
        loop: cst.For | cst.While,
        receiver: cst.BaseExpression | None,
    ) -> str | None:
        """Insert `loader.sampler.set_epoch(epoch)`; returns why not, or None. `statement`
        binds the loader: inside the epoch loop, the call goes right after it."""
        if isinstance(loop, cst.While):
            return "the loop around it is a while loop"
        if receiver is None or not is_simple(receiver):
            return "the loader has no name in this loop"
        if not isinstance(loop.body, cst.IndentedBlock):
            return "one-line epoch loop"
        prefix = self.code(receiver)
        if any(
            isinstance(n, cst.Call)
            and isinstance(n.func, cst.Attribute)
            and n.func.attr.value == "set_epoch"
            and self.code(n.func.value).startswith(prefix)
            for n in walk(loop.body)
        ):
            return None
        target = self.code(loop.target)
        epoch = self._epoch_variable(loop)
        if epoch is None:
            return f"`{target}` is not an epoch number"
        if "epoch" not in epoch.lower() and self._repeated(loop):
            # `for epoch: for aug in range(n): for x in loader`: `aug` starts again at 0 in
            # each epoch, so set_epoch(aug) would draw the same permutation every epoch
            return f"`{target}` restarts in each pass of the loop around it: no epoch number"
        sampler = cst.Attribute(value=bare(receiver.deep_clone()), attr=cst.Name("sampler"))
        call = cst.SimpleStatementLine(
            body=[
                cst.Expr(
                    cst.Call(
                        func=cst.Attribute(value=sampler, attr=cst.Name("set_epoch")),
                        args=[cst.Arg(cst.Name(epoch))],
                    )
                )
            ]
        )
        if statement is not None and inside(statement, loop.body, self):
            # The loader is rebuilt every epoch: set its epoch once it exists.
            self._after.setdefault(statement, []).append(call)
        else:
            self._top.setdefault(loop, []).append(call)
        self.record(loop, f"{prefix}.sampler.set_epoch({epoch}) reshuffles every epoch")
        return None

    def _repeated(self, loop: cst.For) -> bool:
        """Another loop runs `loop` again (around it in its function, or around a call of
        its function): its counter then numbers the passes of one round only."""
        return any(
            isinstance(a, (cst.For, cst.While)) for a, _ in self._loops_around(loop, None, (), 0)
        )

    def _epoch_variable(self, loop: cst.For) -> str | None:
        target = loop.target
        if isinstance(target, cst.Name):
            if target.value == "_":
                if loop in self._renames:
                    return self._renames[loop]
                if "epoch" in self._names(self._scope_root(loop)):
                    return None
                self._renames[loop] = "epoch"
                self.record(target, "named the epoch loop's variable `epoch` for set_epoch")
                return "epoch"
            if "epoch" in target.value.lower() or counts(loop.iter):
                return target.value
            return None
        if isinstance(target, (cst.Tuple, cst.List)):
            names = [e.value for e in target.elements if isinstance(e.value, cst.Name)]
            for name in names:
                if "epoch" in name.value.lower():
                    return name.value
            first = target.elements[0].value if target.elements else None
            if (
                isinstance(loop.iter, cst.Call)
                and name_of(loop.iter.func) == "enumerate"
                and isinstance(first, cst.Name)
                and first.value != "_"
            ):
                return first.value
        return None
