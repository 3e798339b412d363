"""The terminal read on rank 0 only, its answer on every rank (issue 29).

Every process of a torchrun launch shares the terminal. `input("name: ")` on every rank
printed the prompt once per rank and read once per rank: with the answer piped in, one rank
got the line and the others EOFError; at a terminal the others waited forever. Each read
(`input(...)`, `sys.stdin.readline()`, `.read()`, `.readlines()`) becomes
`ddp_stdin(input, "name: ")` (templates/helpers/stdin.py.j2): rank 0 reads and prints the
prompt, the others take its answer through torchrun's rendezvous store (no collective, so
also in a config parser before ddp_setup()). A read already on rank 0 only stays. What
cannot be shared that way, stdin iterated or handed on as a file (`for line in
sys.stdin`, `json.load(sys.stdin)`), is DP055.

Not folded into the agreement rule's `ddp_rank0_value` (run_dir.py), which reads on every
rank and hands over rank 0's value: a terminal read must happen on rank 0 alone (another
rank would wait at the terminal, or get EOFError), so ddp_stdin reads there only. A read of
stdin is one of that rule's sinks: a check of the file system that decides it is rank 0's.
"""

from __future__ import annotations

from typing import Final

import libcst as cst

from dp2ddp.transforms._support.nodes import nodes_of
from dp2ddp.transforms.rank_zero.edits import call_through
from dp2ddp.transforms.rank_zero.rule import CallRule

#: Calls that read one answer from the terminal.
STDIN_READS: Final = frozenset(
    {
        "builtins.input",
        "sys.stdin.readline",
        "sys.stdin.read",
        "sys.stdin.readlines",
        "sys.stdin.buffer.read",
        "sys.stdin.buffer.readline",
    }
)
#: `sys.stdin` itself, read some other way (iterated, passed to a reader).
_STDIN: Final = frozenset({"sys.stdin", "sys.stdin.buffer", "fileinput.input"})


class StdinReads(CallRule):
    def leave_call(
        self, original: cst.Call, updated: cst.Call, names: set[str]
    ) -> cst.BaseExpression | None:
        func = original.func
        if not names & STDIN_READS or (
            isinstance(func, cst.Attribute) and isinstance(func.value, cst.Call)
        ):
            return None  # `input(...).strip()`: the read is the inner call
        if self.facts.under_guard(original) or any(arg.star for arg in updated.args):
            return updated
        self.t.state.helpers.update({"stdin"})
        self.t.record(
            original, "read on rank 0 only (the prompt printed once), its answer on every rank"
        )
        return call_through("ddp_stdin", updated)

    def plan(self, module: cst.Module) -> None:
        """DP055 for stdin read other than by one call that returns the answer."""
        for node in nodes_of(module, (cst.Attribute, cst.Call)):
            target = node.func if isinstance(node, cst.Call) else node
            if not self.t.may_name(target, _STDIN):
                continue  # told without resolving: most calls cannot name stdin
            names = self.t.qualified_names(target)
            if not names & _STDIN or self.facts.under_guard(node):
                continue
            if isinstance(node, cst.Attribute):
                parent = self.t.parent(node)
                if isinstance(parent, cst.Attribute) or (
                    isinstance(parent, cst.Call) and parent.func is node
                ):
                    continue  # sys.stdin.readline(): a read of the terminal, shared above
            self.t.warn(
                node,
                "DP055",
                f"`{self.t.code(node)}` read here by every rank gets each line on one rank only",
            )
