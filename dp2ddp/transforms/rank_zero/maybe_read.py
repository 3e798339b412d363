"""DP066: a rank-0 write no read matched, whose file a later read on every rank may name.

Moved out of barriers.py whole (its one meaning: paths that may be one file and are not
spelled alike get a warning instead of a barrier). Decided once every matched write has its
barrier (stop 55 s2): a read after the barrier that follows another write of the same
rank-0 group (a config written beside a checkpoint copy whose size every rank reads) is not
"no barrier between", nor a read in the other arm of an `if` that no loop repeats (never
after the write on any path)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import enclosing_function, name_of, nodes_of, walk
from dp2ddp.transforms.analysis.sample_code import handed_datasets
from dp2ddp.transforms.rank_zero.attribute_reads import read_through_attribute
from dp2ddp.transforms.rank_zero.path_shapes import LOOP_NAME, may_name_same, spelled_apart
from dp2ddp.transforms.rank_zero.side_effects import COPIES

if TYPE_CHECKING:
    from dp2ddp.transforms.rank_zero.barriers import Barriers


def maybe_read(
    rule: Barriers,
    write: cst.Call,
    texts: tuple[str, ...],
    reads: dict[str, list[cst.Call]],
    spelled: list[cst.Call],
    writes: list[cst.Call],
) -> None:
    """DP066 on a rank-0 write no read matched, at the first later read on every rank
    whose path may name the same file (`spelled`: a loop's wildcard matched it;
    path_shapes.may_name_same). Not where both paths spell out and differ, nor where a
    barrier lies between or the read never follows the write (module docstring; `writes`:
    every rank-0 write of the module). A data file written before a dataset is built
    (dataset_after): the barrier after the write, as for a matched read."""
    if read_through_attribute(rule, write, texts):
        return  # read as `self.attr` by another module's method (attribute_reads.py)
    built = dataset_after(rule, write)
    if built is not None:
        line = rule.t.input_position(built)[0]
        why = f"maybe read by the dataset every rank builds at line {line}"
        if id(write) not in rule._elsewhere:  # a rank-0 group here: its barrier after it
            rule._written_read[id(write)] = f"written on rank 0 here, {why}"
            return
        anchor, omitted = rule.plan_after(write, leave_loops=True)  # every rank calls it
        if omitted is not None:
            rule.t.warn(write, "DP054", f"written on rank 0 in there, {why}; no barrier: {omitted}")
            return
        rule.t.state.helpers.add("barrier")
        rule._after.add(id(anchor if anchor is not None else rule._statement(write)))
        rule.t.record(write, f"ddp_barrier() after it: it writes on rank 0 (another module), {why}")
        return
    written = rule.spell(write, write=True)
    for text in texts:
        for read_text, calls in reads.items():
            if spelled:
                calls, text = spelled, texts[0]
            elif not may_name_same(text, read_text):
                continue
            later = [
                r
                for r in calls
                if rule.may_follow(write, r)
                and not spelled_apart(written, rule.spelled_at(r))
                and not _barrier_between(rule, write, r, writes)
                and not _other_arm(rule, write, r)
            ]
            if not later:
                continue
            write_line = rule.t.input_position(write)[0]
            read_line = rule.t.input_position(later[0])[0]
            shown = texts[0] if LOOP_NAME in text else text
            read_shown = rule.t.code(later[0])
            rule.t.warn(
                write,
                "DP066",
                f"written on rank 0 at line {write_line} (`{shown}`), maybe the file every "
                f"rank reads at line {read_line} (`{read_shown}`): the paths could not be "
                "matched, so no barrier between",
            )
            return


#: Calls writing a dataset's files (arrays, links, copies), not logs or checkpoints.
_DATA_WRITES = COPIES | {
    f"numpy.{name}" for name in ("save", "savez", "savez_compressed", "savetxt")
}


#: torch's datasets over what they are handed in memory: they read no file.
_IN_MEMORY = frozenset({"TensorDataset", "ConcatDataset", "ChainDataset", "StackDataset"})


def dataset_after(rule: Barriers, write: cst.Call) -> cst.Call | None:
    """The construction of a Dataset (a class of the program's per-sample ones, a subclass
    of torch's, or one handed to a DataLoader here) built after `write` in its function, or
    after a call of that function in the caller's; `write` a rank-0 write of a data file no
    read matched: the dataset may list or load it. Round 36, arnab39/
    cycleGAN-PyTorch@ecdc973's data-folder links (`os.symlink` in `create_link()`, listed
    by `ImageFolder` built after it) and a program writing `.npy` files its Dataset lists:
    rank 1 built its dataset before rank 0's files were there (FileNotFoundError in 2 of 3
    runs), unsaid."""
    if not rule.t.qualified_names(write.func) & _DATA_WRITES and id(write) not in rule._elsewhere:
        return None  # not a data file, nor another module's writer every rank calls
    module = rule.facts.module
    datasets = set(rule.t.state.hints.per_sample.datasets) | handed_datasets(module, rule.t)
    datasets -= _IN_MEMORY
    datasets |= {
        c.name.value
        for c in nodes_of(module, cst.ClassDef)
        if any(name_of(b.value).endswith("Dataset") for b in c.bases)
    }
    built = [
        c
        for c in nodes_of(module, cst.Call)
        if (last := name_of(c.func)) in datasets
        or last.endswith("Dataset")
        and last not in _IN_MEMORY
        or any(n.startswith("torchvision.datasets.") for n in rule.t.qualified_names(c.func))
    ]
    function = enclosing_function(write, rule.t)
    sites: list[cst.CSTNode] = [write]  # the write, or the calls of its function
    if function is not None:
        name = function.name.value
        sites += [c for c in nodes_of(module, cst.Call) if name_of(c.func) == name]
    for site in sites:
        around = enclosing_function(site, rule.t)
        at = rule.t._position(site)
        for call in built:
            if enclosing_function(call, rule.t) is not around:
                continue
            if rule.t._position(call) > at or any(n is site for n in walk(call)):
                return call  # built after it, or of what the call returns
    return None


def _line_of(rule: Barriers, node: cst.CSTNode) -> cst.CSTNode:
    """The statement of its block holding `node` (a simple line or a compound one)."""
    current, parent = node, rule.t.parent(node)
    while parent is not None and not isinstance(parent, (cst.IndentedBlock, cst.Module)):
        current, parent = parent, rule.t.parent(parent)
    return current


def _barrier_between(
    rule: Barriers, write: cst.Call, read: cst.Call, writes: list[cst.Call]
) -> bool:
    """A write matched to a read (a barrier after its rank-0 group) lies in the same block
    as `write`, every statement from one to the other writes (one rank-0 group), and
    `read` comes after both, in the same function."""
    function = enclosing_function(write, rule.t)
    if enclosing_function(read, rule.t) is not function:
        return False
    own = _line_of(rule, write)
    block = rule.t.parent(own)
    body = list(getattr(block, "body", ()))
    if own not in body:
        return False
    writing = {id(_line_of(rule, w)) for w in writes if rule.t.parent(_line_of(rule, w)) is block}
    start = body.index(own)
    read_at = rule.t._position(read)
    for step in (1, -1):
        index = start
        while 0 <= index < len(body) and id(body[index]) in writing:
            line = body[index]
            if rule.writes_read_file([line]) is not None and rule.t._position(line) < read_at:
                return not _inside(rule, read, line)
            index += step
    return False


def _inside(rule: Barriers, node: cst.CSTNode, ancestor: cst.CSTNode) -> bool:
    current: cst.CSTNode | None = node
    while current is not None:
        if current is ancestor:
            return True
        current = rule.t.parent(current)
    return False


def _other_arm(rule: Barriers, write: cst.Call, read: cst.Call) -> bool:
    """`write` and `read` lie in the two arms of one `if`, and no loop of their function
    runs that `if` again: the read never follows the write."""
    arms: dict[int, tuple[cst.If, str]] = {}
    current: cst.CSTNode | None = write
    while current is not None and not isinstance(current, cst.FunctionDef):
        parent = rule.t.parent(current)
        if isinstance(parent, cst.If):
            arms[id(parent)] = (parent, "body" if current is parent.body else "orelse")
        current = parent
    current = read
    while current is not None and not isinstance(current, cst.FunctionDef):
        parent = rule.t.parent(current)
        if isinstance(parent, cst.If) and id(parent) in arms:
            arm = "body" if current is parent.body else "orelse"
            if arm == arms[id(parent)][1]:
                return False
            return not _in_loop(rule, parent)
        current = parent
    return False


def _in_loop(rule: Barriers, node: cst.CSTNode) -> bool:
    current = rule.t.parent(node)
    while current is not None and not isinstance(current, (cst.FunctionDef, cst.Module)):
        if isinstance(current, (cst.For, cst.While)):
            return True
        current = rule.t.parent(current)
    return False
