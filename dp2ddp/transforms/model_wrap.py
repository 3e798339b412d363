"""`DataParallel(m, ...)` -> `DistributedDataParallel(m.to(DEVICE), device_ids=DEVICE_IDS)`.

Also: isinstance checks follow the new wrapper, `.cuda()`/`.to()` chained on the wrapper are
folded into the move, and guards around the wrap go, so DDP always wraps (every process must):

* `if <more than one GPU>:` (a GPU-count guard) only decided whether to wrap: its body is
  kept unconditionally and its else branch (the single-device path) dropped. Its messages
  (`print("Let's use", torch.cuda.device_count(), "GPUs!")`) stay under the guard.
* `if <a GPU is there>:` (`torch.cuda.is_available()`, `args.cuda`, `device_count() >= 1`:
  a device guard) decides what runs on CPU too: the wrap moves out of it (also from a count
  guard inside), the rest and its else stay guarded (DP100: the else calls the module bare),
  but for stores re-exposing the module's attributes on the wrapper (DP114 where unproved).
* An if/elif/else whose every branch wraps is not a condition on the wrap: left as it is.
* `patch_replication_callback(model)` (sync-BN packages) on a model wrapped here is removed
  (no replication to patch under DDP; it asserts the model is a DataParallel).
* Only the device terms of a condition go: `if opt.isTrain and len(opt.gpu_ids) and not
  opt.fp16:` becomes `if opt.isTrain and not opt.fp16:` (pix2pixHD's create_model builds the
  inference model through the same helper; dropping `opt.isTrain` with the GPU count wrapped
  it too, and test.py died on `model.inference`). The kept condition is a condition on the
  wrap like any other (DP012), and its else branch stays: it is not the single-device path
  any more, it is what the original ran when the kept terms were false.
"""

from __future__ import annotations

import re
from functools import partial

import libcst as cst
import libcst.matchers as m
from libcst.codemod.visitors import RemoveImportsVisitor

from dp2ddp.flow import view
from dp2ddp.transforms._support.base import MigrationState, MigrationTransform
from dp2ddp.transforms._support.messages import messages_kept_guarded
from dp2ddp.transforms._support.names import DATAPARALLEL, DDP_WRAPS, REPLICATION_PATCHES
from dp2ddp.transforms._support.nodes import (
    is_script_guard,
    module_of,
    move_to_device,
    replication_patch,
    scoped_name,
    unmoved,
    wrap_target,
)
from dp2ddp.transforms.analysis.device_terms import (
    counts_devices,
    drop_device_terms,
    is_device_term,
    wrapped_flag,
)
from dp2ddp.transforms.analysis.dropped_wraps import dropped_wraps
from dp2ddp.transforms.analysis.forwarding_wrapper import ForwardingWraps
from dp2ddp.transforms.analysis.guarded_wraps import (
    called_bare,
    looped_wrap,
    read_before_wrap,
    stores_after_wrap,
    wrap_assignments,
    wraps_on_every_path,
)
from dp2ddp.transforms.analysis.holder_classes import holder_text
from dp2ddp.transforms.analysis.outside_parameters import FROZEN, OutsideParameters
from dp2ddp.transforms.analysis.own_methods import OwnMethodCalls
from dp2ddp.transforms.analysis.owner_parameters import owner_wrap_text
from dp2ddp.transforms.analysis.rewraps import rewrap_why
from dp2ddp.transforms.analysis.strided_buffers import dense_buffers
from dp2ddp.transforms.analysis.tensor_wraps import tensor_binding
from dp2ddp.transforms.analysis.trainer_classes import has_trainers, may_train_locally
from dp2ddp.transforms.analysis.wrap_calls import (
    called_alike,
    calls_function,
    contained_wrappers,
    own_functions_that_wrap,
)
from dp2ddp.transforms.analysis.wrap_chains import chained_on_wrap
from dp2ddp.transforms.analysis.wrap_pairs import WrapPairs
from dp2ddp.transforms.analysis.wrapped_model import UnusedParameters
from dp2ddp.transforms.analysis.wrapper_branches import WrapperBranches
from dp2ddp.transforms.analysis.wrapper_class import WrapperClass
from dp2ddp.transforms.analysis.wrapper_text import TEXTS, text_call, text_field

_TYPE_TEST = re.compile(r"\b(?:isinstance|hasattr|getattr)\(")


class WrapModelInDDP(MigrationTransform):
    NAME = "model_wrap"
    DESCRIPTION = "Wrap models in DistributedDataParallel instead of DataParallel."
    TRIGGERS = ("DataParallel",)

    @classmethod
    def triggered(cls, code: str, state: MigrationState) -> bool:
        """Also a module calling a function of the program that wraps (wrap_calls.py), or
        reading a model another module may hand it a wrap as (wrapper_class.py)."""
        return (
            super().triggered(code, state)
            or any(f"{name}(" in code for name in state.facts.wrap_functions)
            or bool(state.hints.wrap_reaches)
            or has_trainers(state.facts)
            or may_train_locally(code, state.facts)
        )

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        #: (what each wrap is assigned to, the wrap call), in order.
        self._wraps: list[tuple[str, cst.Call]] = []
        #: ids of the `if <kept terms>: wrap` statements this pass made (see
        #: _keep_other_terms): a device guard around one hoists it like a wrap.
        self._kept_wrap_ifs: set[int] = set()
        #: name bound -> (module, alias) of each `from module import patch_replication_callback`.
        self._patch_imports: dict[str, list[tuple[str, cst.ImportAlias]]] = {}
        #: The wraps migrated here, by scope (see scoped_name): a replication patch on one
        #: of them goes.
        self._migrated_wraps: set[tuple[int, str]] = set()
        #: What may leave the wrapped models' parameters without a gradient (DP041).
        self._unused = UnusedParameters(self)
        #: `x.sub = DataParallel(x.sub)` wraps (DP042 once the module's wraps are known).
        self._submodule_wraps: list[tuple[cst.Call, str]] = []
        #: Which wraps never both run, or have an unwrap between them (DP022, DP042).
        self._pairs = WrapPairs(self)
        #: Functions whose own body wraps (analysis/wrap_calls.py), set by visit_Module.
        self._wrapper_functions: frozenset[str] = frozenset()
        #: Choices between the wrapped model and its `.module` (DP057).
        self._branches = WrapperBranches(self, self._is_dp_call, is_device_term, _TYPE_TEST)
        #: Syncs of modules trained outside the wraps (DP068); `.reinit`: re-init broadcasts.
        self._outside = OutsideParameters(self, self._is_dp_call)
        #: Wraps by the program's forwarding DataParallel subclasses (v3-A, stop 43).
        self._forwarding = ForwardingWraps(self)
        #: isinstance tests and names of the wrapper's class (analysis/wrapper_class.py).
        self._class = WrapperClass(self, self._is_dp_call)
        self._module = cst.Module([])
        self._branches.seen = self._class.seen  # a wrap stored on an object, handed on
        #: The model's own methods called on a guard-wrapped name (DP190, stop 56 v1-A).
        self._own_calls = OwnMethodCalls(self, self._is_dp_call)

    def visit_Module(self, node: cst.Module) -> bool:
        self._module = node
        self._unused.module = self._branches.module = self._class.module = node
        own = own_functions_that_wrap(node, self._is_dp_call) | {*self.state.facts.wrap_functions}
        self._wrapper_functions = frozenset(own)
        for dropped in dropped_wraps(node, self._is_dp_call, own, self.state.facts.wrap_returns):
            self.warn(dropped, "DP225", self.code(dropped))
        self._outside.plan(node, self._wrapper_functions)
        self._own_calls.plan(node)
        return True

    def visit_Assign(self, node: cst.Assign) -> None:
        self._pairs.note_assign(node)

    def _is_dp_call(self, node: cst.CSTNode) -> bool:
        """`DataParallel(m)`; not the call of the wrapper `DataParallel(m)(x)` (v4-B)."""
        func = node.func if isinstance(node, cst.Call) else None
        return (
            func is not None and not isinstance(func, cst.Call) and self.matches(func, DATAPARALLEL)
        )

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        """`from torch.nn import DataParallel` goes once nothing uses it any more. Imports of
        the sync-BN replication patch are noted: the patch's import goes with its last call
        (a relative import stays: libcst cannot resolve it without the package name)."""
        if isinstance(node.names, cst.ImportStar) or node.relative or node.module is None:
            return  # libcst raises on a relative import (it has no package name to resolve)
        if any((alias.evaluated_name == "DataParallel") for alias in node.names):
            RemoveImportsVisitor.remove_unused_import_by_node(self.context, node)
        for alias in node.names:
            if alias.evaluated_name in REPLICATION_PATCHES:
                bound = alias.evaluated_alias or alias.evaluated_name
                module = self.code(node.module)
                self._patch_imports.setdefault(bound, []).append((module, alias))

    # -- the wrap itself --------------------------------------------------------------
    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if isinstance(original_node.func, cst.Name) and original_node.func.value in TEXTS:
            text = text_call(self, self._class, original_node, updated_node)
            if text is not updated_node:
                return text
        if self._is_dp_call(original_node):
            wrap = self._rewrite_wrap(original_node, updated_node)
            if id(original_node) in self._outside.frozen_returns:  # unfrozen after the wrap
                return cst.Call(cst.Name(FROZEN), [cst.Arg(wrap)])
            return wrap
        if self._is_dp_call(original_node.func):  # built and called at once, each call
            self.warn(original_node, "DP197", self.code(original_node.func))
        self._outside.note(original_node, updated_node)
        updated_node = self._own_calls.rewrite(original_node, updated_node)
        func = original_node.func
        if isinstance(func, cst.Attribute) and self._is_dp_call(unmoved(func.value)):
            return chained_on_wrap(self, original_node, updated_node, FROZEN)
        return updated_node

    def _rewrite_wrap(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        module: cst.BaseExpression | None = None
        original_module: cst.BaseExpression | None = None
        dim = "0"
        for index, (original_arg, arg) in enumerate(zip(original.args, updated.args, strict=True)):
            keyword = arg.keyword.value if arg.keyword else None
            if (keyword is None and index == 0) or keyword == "module":
                module, original_module = arg.value, original_arg.value
            elif (keyword is None and index == 3) or keyword == "dim":
                dim = self.code(arg.value)
                if not (isinstance(arg.value, cst.Integer) and arg.value.value == "0"):
                    self.warn(original, "DP001", f"dim={self.code(arg.value)}")
        if module is None:
            self.warn(original, "DP016", "DataParallel() without a module argument")
            return updated
        self.state.scatter_dims.append(dim)
        moved = move_to_device(module)
        if isinstance(original_module, cst.Call) and any(
            name.startswith("torch.nn.") and name.endswith("Loss")
            for name in self.qualified_names(original_module.func)
        ):
            self.record(original, f"unwrapped {self.code(module)}: a loss needs no DDP wrapper")
            return moved.with_changes(lpar=updated.lpar, rpar=updated.rpar)
        if original_module is not None and self._wraps_tensor(original, original_module):
            return module.with_changes(lpar=updated.lpar, rpar=updated.rpar)
        if self.state.options.sync_batchnorm:
            self.state.helpers.add("sync_batchnorm")
            moved = cst.Call(func=cst.Name("ddp_sync_batchnorm"), args=[cst.Arg(moved)])
        moved = dense_buffers(self.state, self._module, moved)
        target = wrap_target(original, self)
        if target is not None and target not in self.state.wrapped:
            self.state.wrapped.append(target)
        if target is not None:
            self._migrated_wraps.add(scoped_name(original, target, self))
        self._pairs.note_wrap(original)
        self._note_nested(original, target)
        self._check_submodule_wrap(original, original_module, target)
        self._check_device_list(original)
        self.record(
            original,
            f"wrapped {self.code(module)} in DistributedDataParallel on this process's device"
            + (" (DataParallel-only arguments dropped)" if len(updated.args) > 1 else ""),
        )
        keywords = [("device_ids", cst.Name("DEVICE_IDS"))]
        partial_use = self._unused.why(original_module, target) or rewrap_why(
            self, self._unused, self._is_dp_call, original, target
        )
        if partial_use:
            keywords += [(self._unused.flag, cst.Name("True"))] if self._unused.flag else []
            self.warn(original, self._unused.code, partial_use)
        wrap = self._unused.wrap_call(original, original_module, self.code(module))
        migrated = cst.Call(
            func=cst.Name(wrap),
            args=[
                cst.Arg(moved),
                *(
                    cst.Arg(
                        keyword=cst.Name(keyword),
                        value=value,
                        equal=cst.AssignEqual(
                            whitespace_before=cst.SimpleWhitespace(""),
                            whitespace_after=cst.SimpleWhitespace(""),
                        ),
                    )
                    for keyword, value in keywords
                ),
            ],
            lpar=updated.lpar,
            rpar=updated.rpar,
        )
        self._forwarding.note(original, updated, migrated, wrap)
        return migrated

    def leave_ClassDef(
        self, original_node: cst.ClassDef, updated_node: cst.ClassDef
    ) -> cst.ClassDef:
        return self._forwarding.rebase(original_node, updated_node)

    def leave_IndentedBlock(
        self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        body = self._outside.after(original_node.body, updated_node.body)
        return updated_node if body is None else updated_node.with_changes(body=body)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        self._warn_submodule_wraps()
        body = self._outside.after(original_node.body, updated_node.body)
        self._outside.reinit.unplaced()
        module = updated_node if body is None else updated_node.with_changes(body=body)
        return self._forwarding.respelled(module)

    def _check_submodule_wrap(
        self, call: cst.Call, module: cst.BaseExpression | None, target: str | None
    ) -> None:
        """DP042: `model.encoder = DataParallel(model.encoder)` (HobbitLong/SupContrast's
        main_supcon.py) where `model` itself is never wrapped: DDP over the submodule alone
        averages its gradients only; the rest of `model` trains per rank. Where the owner is
        wrapped too, or is `self` in an nn.Module, DP022 says what to do (_note_nested)."""
        if module is None or target is None or "." not in target:
            return
        if self.code(module) != target or target.startswith("self."):
            return
        self._submodule_wraps.append((call, target))

    def _check_device_list(self, call: cst.Call) -> None:
        """DP045: `device_ids=self.gpus`, a list the caller gives, still read elsewhere
        (`len(self.gpus)`, `self.gpus[0]`): analysis/device_lists.py."""
        found = self._own_calls.device_list_reads(call)
        if found is None:
            return
        spelled, reads = found
        places = " and ".join(
            f"`{self.code(read)}` (line {self._position(read)[0]})" for read in reads[:2]
        ) + (f" and {len(reads) - 2} more" if len(reads) > 2 else "")
        self.warn(
            call,
            "DP045",
            f"`device_ids={spelled}`: {places} still "
            f"{'reads' if len(reads) == 1 else 'read'} it as the GPUs of one process; "
            "under torchrun each process drives one device (DEVICE) and the processes are the "
            "device list, so a list a caller passes no longer describes this process (pass "
            "none where it only chose DataParallel's replicas)",
        )

    def _warn_submodule_wraps(self) -> None:
        for call, target in self._submodule_wraps:
            owner = target.rsplit(".", 1)[0]
            if any(
                (owner == w or owner.startswith(w + "."))
                and not self._pairs.apart(call, other, (target, w))
                for w, other in self._wraps
            ):
                continue
            text = holder_text(self._unused, target, owner)
            if text:
                self.warn(call, "DP042", text)

    # -- patch_replication_callback(model) on a model that is DDP now ---------------------
    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine | cst.RemovalSentinel:
        """`patch_replication_callback(model)` after `model = DataParallel(...)` goes.

        The sync-BN packages' patch makes DataParallel's per-forward replicas call back into
        their SynchronizedBatchNorm layers; DDP does not replicate, so under DDP it has
        nothing to patch, and it asserts `isinstance(model, DataParallel)`: kept, it raised
        AssertionError at start-up (jfzhang95/pytorch-deeplab-xception@9135e10 train.py).
        Only where its argument holds a wrap this pass migrated; elsewhere detect's DP002
        stands. Without --sync-batchnorm DP083 there: it synchronised the statistics."""
        kept = [
            new
            for old, new in zip(original_node.body, updated_node.body, strict=True)
            if not self._drops_replication_patch(old)
        ]
        if len(kept) == len(updated_node.body):
            return updated_node
        if not kept:
            return cst.RemovalSentinel.REMOVE
        kept[-1] = kept[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
        return updated_node.with_changes(body=kept)

    def _drops_replication_patch(self, statement: cst.BaseSmallStatement) -> bool:
        if not (isinstance(statement, cst.Expr) and isinstance(statement.value, cst.Call)):
            return False
        call = statement.value
        name = replication_patch(call, self)
        if name is None or not call.args:
            return False
        model = self.code(call.args[0].value)
        if scoped_name(call, model, self) not in self._migrated_wraps:
            return False
        note = "there is no replication to patch (BatchNorm across processes: --sync-batchnorm)"
        self.record(call, f"removed {name}({model}): DDP does not replicate the model, so {note}")
        # a layer it synchronised: a program class named so, or this module names one
        held = any("BatchNorm" in m.name.rpartition(".")[2] for m in self.state.facts.models)
        if not self.state.options.sync_batchnorm and (held or "Synchronized" in self.state.text):
            self.warn(call, "DP083", f"{self.code(call.func)}({model})")  # stop 62 v1-C
        if isinstance(call.func, cst.Name):
            for module, alias in self._patch_imports.get(call.func.value, []):
                RemoveImportsVisitor.remove_unused_import(
                    self.context, module, alias.evaluated_name, alias.evaluated_alias
                )
        return True

    # -- a wrap inside another wrapped model -------------------------------------------
    def _note_nested(self, call: cst.Call, target: str | None) -> None:
        """DataParallel nests; DDP does not: a wrapped submodule of a model that is wrapped
        too would get two reducers over the same parameters. Warned (DP022), not rewritten:
        which wrapper to keep is the user's call."""
        if target is None:
            return
        if target.startswith("self."):
            owner = self._enclosing_class(call)
            if owner is not None and any("Module" in self.code(base.value) for base in owner.bases):
                message = owner_wrap_text(self, call, owner, target)
                if message:
                    self.warn(call, "DP022", message)
                return
        for other, other_call in self._wraps:
            inner, outer = (target, other) if target.startswith(other + ".") else (other, target)
            if inner.startswith(outer + ".") and not self._pairs.apart(
                call, other_call, (inner, outer)
            ):
                self.warn(
                    call if inner == target else other_call,
                    "DP022",
                    f"{inner} is a submodule of {outer}, which is wrapped too: two DDP "
                    f"wrappers would share its parameters; wrap only {outer}",
                )
        self._wraps.append((target, call))

    def _enclosing_class(self, node: cst.CSTNode) -> cst.ClassDef | None:
        current = self.parent(node)
        while current is not None and not isinstance(current, cst.ClassDef):
            current = self.parent(current)
        return current

    # -- isinstance(m, nn.DataParallel), the wrapper's class name -------------------
    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        return self._class.type_test(original_node, updated_node)

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.BaseExpression:
        return self._class.class_name(original_node, updated_node)

    def leave_FormattedStringExpression(
        self,
        original_node: cst.FormattedStringExpression,
        updated_node: cst.FormattedStringExpression,
    ) -> cst.FormattedStringExpression:
        return text_field(self, self._class, original_node, updated_node)

    # -- guards -------------------------------------------------------------------------
    def _wraps_directly(self, block: cst.BaseSuite) -> bool:
        """The block has a top-level statement that calls DataParallel (or a function that
        does: analysis/wrap_calls.py), or a loop around one (guarded_wraps.looped_wrap)."""
        if not isinstance(block, cst.IndentedBlock):
            return False
        wraps = m.Call(func=m.MatchIfTrue(lambda f: self.matches(f, DATAPARALLEL)))
        return any(
            isinstance(stmt, cst.SimpleStatementLine)
            and (m.findall(stmt, wraps) or calls_function(stmt, self._wrapper_functions))
            or looped_wrap(stmt, self._wraps_directly)
            for stmt in block.body
        )

    def _wraps_tensor(self, call: cst.Call, argument: cst.BaseExpression) -> bool:
        """DP188: DataParallel handed a name proved a tensor (analysis/tensor_wraps)."""
        scope: cst.CSTNode | None = self.parent(call)
        while scope is not None and not isinstance(scope, (cst.FunctionDef, cst.Module)):
            scope = self.parent(scope)
        binding = (
            tensor_binding(argument, scope, self.qualified_names, self.parent) if scope else None
        )
        if binding is None:
            return False
        made = f"`{self.code(binding.func).strip()}(...)` at line {self.line_of(binding)}"
        self.warn(call, "DP188", f"`{self.code(argument).strip()}` is the tensor {made}")
        return True

    def leave_If(
        self, original_node: cst.If, updated_node: cst.If
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        if isinstance(self.parent(original_node), cst.If):
            return updated_node  # an elif: judged with the head of its chain
        unwrapped = self._branches.unwrap_branch(original_node, updated_node)
        unwrapped = unwrapped or self._own_calls.unguard(original_node, updated_node)
        if unwrapped is not None:
            return unwrapped
        test = self.code(original_node.test)
        guard = is_device_term(test) and not wrapped_flag(original_node.test, view(self._module))
        dropped: list[str] = []
        kept = drop_device_terms(updated_node.test, dropped) if guard else None
        if kept is None or not dropped:  # not a guard, or its device terms cannot be separated
            guard = False
        device_guard = guard and not any(counts_devices(term) for term in dropped)
        if not self._wraps_directly(original_node.body):
            if device_guard:  # a count guard nested inside was flattened into this body
                return self._hoist_wrap(original_node, updated_node, kept, dropped)
            if not self._contains_kept_wrap(updated_node.body):
                self._warn_conditional_wraps(original_node)
            return updated_node
        if not guard or not isinstance(updated_node.body, cst.IndentedBlock):
            self._warn_conditional_wraps(original_node)
            return updated_node
        if device_guard:
            return self._hoist_wrap(original_node, updated_node, kept, dropped)
        if isinstance(kept, cst.BaseExpression):
            return self._keep_other_terms(original_node, updated_node, kept, dropped)
        orelse = original_node.orelse
        if (
            isinstance(orelse, cst.Else)
            and isinstance(updated_node.orelse, cst.Else)
            and wraps_on_every_path(orelse.body, self._wraps_directly)
            and self.code(updated_node.orelse.body) != self.code(updated_node.body)
        ):
            # the else wraps too, and does more than the body apart from DataParallel's
            # arguments (`if num_gpu is None: DP(m); num_gpu = count()` / `else: assert
            # ...; DP(m, device_ids=...)`, loeweX/Greedy_InfoMax@22d17e4): not the
            # single-device path, left as it is
            return updated_node
        body, messages = messages_kept_guarded(
            list(updated_node.body.body), updated_node.test, self.qualified_names, self.code
        )
        first = body[0]
        assert isinstance(first, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
        body[0] = first.with_changes(
            leading_lines=[*updated_node.leading_lines, *first.leading_lines]
        )
        else_note = self._branches.dropped_else(original_node)  # its DP057 withdrawn
        kept_note = f" (its {messages} message{'s' if messages > 1 else ''} stay under it)"
        self.record(
            original_node,
            f"removed the guard `if {test}`{else_note}: DDP always wraps"
            + (kept_note if messages else ""),
        )
        return cst.FlattenSentinel(body)

    def _keep_other_terms(
        self, original: cst.If, updated: cst.If, kept: cst.BaseExpression, dropped: list[str]
    ) -> cst.If:
        """`if opt.isTrain and len(opt.gpu_ids): wrap` -> `if opt.isTrain: wrap`: the GPU
        count goes (every process wraps), the rest still decides. The else branch stays:
        the original ran it whenever the kept terms were false."""
        new_if = updated.with_changes(test=kept)
        self._kept_wrap_ifs.add(id(new_if))
        self.record(
            original,
            f"dropped the device terms {', '.join(f'`{t}`' for t in dropped)} of "
            f"`if {self.code(original.test)}`: kept `if {self.code(kept)}`",
        )
        self._warn_conditional_wraps(original, head_test=self.code(kept))
        return new_if

    def _contains_kept_wrap(self, block: cst.BaseSuite) -> bool:
        """The block holds an `if <kept terms>: wrap` made by _keep_other_terms/_hoist_wrap
        (already warned DP012 there)."""
        return isinstance(block, cst.IndentedBlock) and any(
            id(stmt) in self._kept_wrap_ifs for stmt in block.body
        )

    def _warn_conditional_wraps(self, head: cst.If, head_test: str | None = None) -> None:
        """DP012 at each branch of an if/elif/else chain that wraps, unless all of them do
        (then every path wraps, whatever the condition). `head_test`: the condition the
        head keeps once its device terms are dropped."""
        if is_script_guard(head.test) and head.orelse is None:
            return  # the script guard: every rank runs the script, so every rank wraps
        branches: list[tuple[cst.CSTNode, str, cst.BaseSuite]] = []
        tests: list[tuple[cst.BaseExpression, cst.CSTNode]] = []
        node: cst.If | cst.Else | None = head
        head_test = head_test or self.code(head.test)
        while node is not None:
            if isinstance(node, cst.If):
                test = head_test if node is head else self.code(node.test)
                branches.append((node, f"if {test}", node.body))
                tests.append((node.test, node))
                node = node.orelse
            else:
                branches.append((node, f"else of if {head_test}", node.body))
                node = None
        wrapping = [b for b in branches if wraps_on_every_path(b[2], self._wraps_directly)]
        if len(wrapping) == len(branches) and isinstance(branches[-1][0], cst.Else):
            return
        for where, condition, body in wrapping:
            guarding = tests[: [b[0] for b in branches].index(where) + 1]
            own = partial(contained_wrappers, module_of(head, self).code)  # type: ignore[attr-defined]
            if not called_alike(
                self, guarding, body, self._wrapper_functions, own, self._is_dp_call
            ):
                self._branches.kept_under(where, [t for t, _ in guarding], condition)

    def _hoist_wrap(
        self,
        original: cst.If,
        updated: cst.If,
        kept: cst.BaseExpression | bool | None = True,
        dropped: list[str] | None = None,
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement]:
        """`if <device guard>: a; m = DDP(m); b; else: c` ->
        `if guard: a; else: c` / `m = DDP(m)` / `if guard: b` (empty parts left out).
        With other terms in the guard (`if opt.isTrain and torch.cuda.is_available()`),
        the wrap moves under `if <those terms>:` (`kept`)."""
        if not isinstance(updated.body, cst.IndentedBlock):
            return updated
        body = list(updated.body.body)
        wraps = [
            i
            for i, stmt in enumerate(body)
            if (
                isinstance(stmt, cst.SimpleStatementLine)
                and m.findall(stmt, m.Call(func=m.OneOf(*map(m.Name, DDP_WRAPS))))
            )
            or id(stmt) in self._kept_wrap_ifs
            or calls_function(stmt, self._wrapper_functions)
            or looped_wrap(stmt, self._wraps_directly)
        ]
        if not wraps:
            return updated
        before, hoisted, after = (
            body[: wraps[0]],
            body[wraps[0] : wraps[-1] + 1],
            body[wraps[-1] + 1 :],
        )
        test = self.code(original.test)
        targets = {t for stmt in hoisted for t in wrap_assignments(stmt)}
        tail, head, unproved = stores_after_wrap(before, after, targets)
        if unproved is not None:
            self.warn(original, "DP114", f"`{self.code(unproved).strip()}` under `if {test}`")
        hoisted = [*before[len(before) - tail :], *hoisted, *after[:head]]
        before, after = before[: len(before) - tail], after[head:]
        updated, else_note = self._drop_else_wraps(original, updated, hoisted)
        out: list[cst.BaseStatement] = []
        if before:
            out.append(updated.with_changes(body=updated.body.with_changes(body=before)))
        elif isinstance(updated.orelse, cst.Else):
            negated = cst.UnaryOperation(
                operator=cst.Not(),
                expression=updated.test.with_changes(
                    lpar=[cst.LeftParen()], rpar=[cst.RightParen()]
                )
                if isinstance(updated.test, (cst.BooleanOperation, cst.Comparison, cst.IfExp))
                else updated.test,
            )
            out.append(updated.with_changes(test=negated, body=updated.orelse.body, orelse=None))
        elif updated.orelse is not None:
            pass_line = cst.SimpleStatementLine([cst.Pass()])
            out.append(updated.with_changes(body=updated.body.with_changes(body=[pass_line])))
        if isinstance(kept, cst.BaseExpression):
            kept_if = cst.If(test=kept, body=cst.IndentedBlock(body=hoisted))
            self._kept_wrap_ifs.add(id(kept_if))
            hoisted = [kept_if]
            self._warn_conditional_wraps(original, head_test=self.code(kept))
        if not out:
            first = hoisted[0]
            assert isinstance(first, (cst.SimpleStatementLine, cst.If))  # see above
            hoisted[0] = first.with_changes(
                leading_lines=[*updated.leading_lines, *first.leading_lines]
            )
        out.extend(hoisted)
        if after:
            out.append(
                updated.with_changes(
                    leading_lines=[],
                    body=updated.body.with_changes(body=after),
                    orelse=None,
                )
            )
        kept_note = (
            f" (under `if {self.code(kept)}`, its terms other than "
            f"{', '.join(f'`{t}`' for t in dropped or [])})"
            if isinstance(kept, cst.BaseExpression)
            else ""
        )
        self.record(
            original,
            f"moved the wrap out of the device guard `if {test}`{kept_note}: every process "
            f"wraps, on CPU too{else_note}",
        )
        return cst.FlattenSentinel(out)

    def _drop_else_wraps(
        self, original: cst.If, updated: cst.If, hoisted: list[cst.BaseStatement]
    ) -> tuple[cst.If, str]:
        """`if cuda: m = DP(m).cuda() else: m = DP(m)`: hoisted, every path wraps, so the else
        branch's wrap goes (twice on CPU else); DP086 where the rest reads the wrapped name."""
        orelse = updated.orelse
        if not isinstance(orelse, cst.Else) or not isinstance(orelse.body, cst.IndentedBlock):
            return updated, ""
        targets = {t for stmt in hoisted for t in wrap_assignments(stmt)}
        kept = [
            i
            for i, stmt in enumerate(orelse.body.body)
            if not (wrap_assignments(stmt) and wrap_assignments(stmt) <= targets)
        ]
        rest = [orelse.body.body[i] for i in kept]
        read, test = read_before_wrap(rest, targets), self.code(original.test)
        if read is not None and original.orelse is not None:  # the marker above `else:`
            stmt = rest[read]
            why = f"`{self.code(stmt).strip().splitlines()[0]}` in the else of `if {test}` reads"
            self.warn(original.orelse, "DP086", why + " the model before the wrap after the `if`")
        if (bare := called_bare(rest, hoisted)) is not None and original.orelse is not None:
            self.warn(original.orelse, "DP100", f"`{bare}` in the else of `if {test}`")
        if len(rest) == len(orelse.body.body):
            return updated, ""
        new_else = orelse.with_changes(body=orelse.body.with_changes(body=rest)) if rest else None
        return updated.with_changes(orelse=new_else), " (the else branch's wrap of it dropped)"

    def leave_IfExp(self, original_node: cst.IfExp, updated_node: cst.IfExp) -> cst.BaseExpression:
        chosen = self._branches.unwrap_choice(original_node, updated_node)
        if chosen is not None:
            return chosen
        if not self._is_dp_call(unmoved(original_node.body)):  # `DP(m).cuda() if ...` too
            return self._branches.wrap_in_else(original_node, updated_node)
        test = self.code(original_node.test)
        dropped: list[str] = []
        kept = drop_device_terms(updated_node.test, dropped) if is_device_term(test) else None
        if kept is True and dropped:
            self.record(original_node, f"removed the guard `if {test}`: DDP always wraps")
            return updated_node.body.with_changes(lpar=updated_node.lpar, rpar=updated_node.rpar)
        if isinstance(kept, cst.BaseExpression) and dropped:
            self.record(
                original_node,
                f"dropped the device terms {', '.join(f'`{t}`' for t in dropped)} of "
                f"`if {test}`: kept `if {self.code(kept)}`",
            )
            self._branches.kept_under(original_node, [kept], f"if {self.code(kept)}")
            return updated_node.with_changes(test=kept)
        self._branches.kept_under(original_node, [original_node.test], f"if {test}")
        return updated_node
