"""Reads and writes of a file through a chain of the program's functions, joined once for
the program (file_calls.file_calls names each module's links).

A module's function that hands its parameter (or a path under it) on to another function
of the program (`eval_all_results(p)` → `eval_semseg_predictions(save_dir=p["save_dir"])`
→ `eval_semseg(os.path.join(save_dir, "semseg"))` → `Image.open(os.path.join(folder,
name))`: SimonVandenhende/Multi-Task-Learning-PyTorch@ed3d9ac) reads (writes) the file
that function reads (writes) there. Each module tells its links (`file_forwards`:
`name:position:parameter<callee@slot`); here they are joined to the readers, writers and
handers of every module, a bounded number of calls deep, so a module calling
`eval_all_results(p)` right after `save_model_predictions(p, ...)` wrote under `p` on rank 0
reads it there, and barriers.py puts the barrier between (stop 53 s2). A callee is matched
by its name, as ProgramHints.file_read_by's entries are; an entry's kind of file
(`name:position:parameter:.png`, file_calls.extension) passes on to the function handing
the folder on.
"""

from __future__ import annotations

#: How many calls deep a chain of the program's functions is followed to a read or write.
CALLS_DEEP = 3


def chained(entries: list[frozenset[str]], forwards: list[frozenset[str]]) -> list[frozenset[str]]:
    """`entries` (one set per module: file_readers, file_writers or file_handers) with each
    module's function that hands a parameter on to one of them at its slot (`forwards`,
    one set per module), CALLS_DEEP links deep."""
    links = [
        (index, caller, callee, slot)
        for index, module in enumerate(forwards)
        for link in module
        for caller, _, target in [link.partition("<")]
        for callee, _, slot in [target.partition("@")]
    ]
    if not links or not any(entries):
        return entries
    found = [set(module) for module in entries]
    for _ in range(CALLS_DEEP):
        slots: dict[tuple[str, str], set[str]] = {}
        for module in found:
            for entry in module:
                name, position, rest = entry.split(":", 2)
                parameter, _, kind = rest.partition(":")
                if position != "=":
                    slots.setdefault((name, position), set()).add(kind)
                    slots.setdefault((name, parameter), set()).add(kind)
        added = [
            (i, f"{caller}:{kind}" if kind else caller)
            for i, caller, callee, slot in links
            for kind in slots.get((callee, slot), ())
        ]
        added = [(i, caller) for i, caller in added if caller not in found[i]]
        if not added:
            break
        for index, caller in added:
            found[index].add(caller)
    return [frozenset(module) for module in found]
