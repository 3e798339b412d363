"""tqdm bars drawn by rank 0 only: `disable=not ddp_is_main()` (an explicit `disable`
value is kept on rank 0). A bar whose name the program reads an attribute of that only a
shown bar sets (`bar.start_t`, `bar._time()`, `bar.desc`: tqdm's `__init__` returns early
when disabled) or advances (`bar.n`: a disabled bar's `update()` returns at once) draws into
a sink off rank 0 instead, `file=ddp_bar_file()` (round 26,
NVIDIA/flownet2-pytorch@bce69c8: `progress._time()` raised AttributeError on rank 1, and
rank 0 died mid-save)."""

from __future__ import annotations

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.transforms._support.nodes import bound_names, walk
from dp2ddp.transforms.analysis.guards import main_call, mentions_rank, not_main
from dp2ddp.transforms.rank_zero.edits import append_keyword, is_name, parenthesize
from dp2ddp.transforms.rank_zero.rule import CallRule
from dp2ddp.transforms.rank_zero.side_effects import TQDM

#: What a tqdm bar holds only when shown: its `__init__` stops after `disable`,
#: `iterable`, `leave`, `n`, `pos` and `total` when disabled (tqdm 4.x); and its counter
#: `n`, which `update()` advances only when shown (round 31, otenim/GLCIC-PyTorch@3f9de13:
#: `while pbar.n < steps`, `if pbar.n % period == 0:` on a bar disabled off rank 0 kept 0
#: there: rank 1 took the snapshot branch at every step, a collective mismatch).
_SHOWN_ONLY = frozenset(
    "n format_dict "
    "_time start_t last_print_t last_print_n desc fp postfix initial unit unit_scale "
    "unit_divisor ncols nrows mininterval maxinterval miniters dynamic_miniters ascii "
    "bar_format smoothing sp delay colour gui lock_args _ema_dn _ema_dt _ema_miniters".split()
)


class ProgressBars(CallRule):
    def leave_call(
        self, original: cst.Call, updated: cst.Call, names: set[str]
    ) -> cst.BaseExpression | None:
        if names & TQDM:
            return self._tqdm(original, updated)
        return None

    def _tqdm(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        if self.facts.before_setup(original) or self.facts.under_guard(original):
            return updated
        if any(arg.star == "**" for arg in updated.args):
            return updated  # `disable` may be among the keywords: adding one could clash
        if any(
            a.keyword is not None
            and a.keyword.value == "file"
            and isinstance(a.value, cst.Call)
            and is_name(a.value.func, "ddp_bar_file")
            for a in updated.args
        ):
            return updated  # drawn into a sink off rank 0 already (this pass's own edit)
        read = self._shown_only_read(original)
        if read is not None and not any(
            a.keyword is not None and a.keyword.value in ("file", "disable") for a in updated.args
        ):
            self.t.state.helpers.add("bar_file")
            self.t.record(original, f"progress bar drawn into a sink off rank 0 (`{read}` read)")
            return append_keyword(updated, "file", cst.Call(cst.Name("ddp_bar_file")))
        for index, arg in enumerate(updated.args):
            if arg.keyword is None or arg.keyword.value != "disable":
                continue
            value = arg.value
            if mentions_rank(value) or is_name(value, "True"):
                return updated
            if is_name(value, "False"):
                new_value: cst.BaseExpression = not_main()
            elif is_name(value, "None"):  # None: tqdm's "off when not a terminal"
                new_value = cst.IfExp(
                    test=main_call(), body=cst.Name("None"), orelse=cst.Name("True")
                )
            else:
                new_value = cst.BooleanOperation(
                    left=parenthesize(value), operator=cst.Or(), right=not_main()
                )
            args = list(updated.args)
            args[index] = arg.with_changes(value=new_value)
            self.t.record(original, "progress bar shown on rank 0 only")
            return updated.with_changes(args=args)
        self.t.record(original, "progress bar shown on rank 0 only")
        return append_keyword(updated, "disable", not_main())

    def _shown_only_read(self, call: cst.Call) -> str | None:
        """`bar.start_t` (or another _SHOWN_ONLY attribute) read in the function that binds
        `bar = tqdm(...)` / `with tqdm(...) as bar`, through the def-use view's reads of
        that binding; None where none is."""
        flow = view(self.facts.module)
        parent = self.t.parent(call)
        if isinstance(parent, cst.AsName):
            parent = self.t.parent(parent)
        names: list[cst.Name] = []
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1:
            names = bound_names(parent.targets[0].target)
        elif isinstance(parent, cst.WithItem) and parent.asname is not None:
            names = bound_names(parent.asname.name)
        if len(names) != 1:
            return None
        function = flow.function_around(call)
        scope = function.node if function is not None else self.facts.module
        for node in walk(scope):
            if (
                isinstance(node, cst.Attribute)
                and node.attr.value in _SHOWN_ONLY
                and isinstance(node.value, cst.Name)
                and node.value.value == names[0].value
            ):
                return f"{names[0].value}.{node.attr.value}"
        return None
