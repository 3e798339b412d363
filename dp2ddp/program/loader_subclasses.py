"""Loaders built from a project class that subclasses DataLoader (DP035).

The data pass shards `torch.utils.data.DataLoader(...)` calls. A project class that
subclasses DataLoader and forwards its arguments (kaituoxu/Conv-TasNet@0d9d9dc:
`class AudioDataLoader(data.DataLoader)` in data.py, adding a collate_fn; train.py builds
`AudioDataLoader(tr_dataset, batch_size=1, shuffle=args.shuffle)`) is not a DataLoader
call, so its loader stays whole and every rank trains on all of it. Until the data pass
follows such classes, each call of one that passes `shuffle=`, or a `sampler=` or
`batch_sampler=` of its own (a training loader), is named, in a program that uses
DataParallel: never in silence.

A class whose `__init__` hands `super().__init__` a `sampler=` / `batch_sampler=` of its
own is rewritten by the data pass (`**ddp_loader_arguments(...)`): every instance is
sharded, so DP035 ("not sharded") is not said of it (round 26, remiMZ/MRN-ICASSP22@0952cf3's
BatchMetaDataLoader). Its rewritten `__init__` takes `ddp_shard=True` where the flag reaches
the call; the data pass of every module passes `ddp_shard=False` to the instances it
proves evaluated (data/subclass_instances.py). Of a sharding class the flag cannot reach,
an instance built in another module that trains from no keyword (an evaluation loader's
shape) is said at its call: DP015, sharded, its figures this rank's share unless reduced.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from dp2ddp.codes import title
from dp2ddp.result import Diagnostic
from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import last_name
from dp2ddp.transforms._support.identifiers import mentions

if TYPE_CHECKING:
    from dp2ddp.program.discovery import Program, ProgramModule
    from dp2ddp.program.project import Project


@dataclass(frozen=True)
class SubclassCall:
    line: int
    col: int
    cls: str
    defined_in: str  # path of the module defining the class


#: A class a module defines: (name, the module's path, the last names of its bases).
ClassBases = tuple[str, str, tuple[str, ...]]


def class_bases(path: str, tree: ast.Module) -> tuple[ClassBases, ...]:
    """The classes `tree` (the module at `path`) defines, each with its bases' last names:
    a fact of one module, kept by the project model (each program of a folder asks it of
    the modules they share)."""
    return tuple(
        (node.name, path, tuple(b for b in map(last_name, node.bases) if b))
        for node in ast_nodes.listed(tree)
        if isinstance(node, ast.ClassDef)
    )


def loader_subclasses(modules: Iterable[Iterable[ClassBases]]) -> dict[str, str]:
    """Class name -> path, for the classes of the modules (`class_bases` of each) that
    subclass a DataLoader (`DataLoader`, `data.DataLoader`, `torch.utils.data.DataLoader`,
    or one of these classes), to a fixed point."""
    classes = [each for module in modules for each in module]
    found: dict[str, str] = {}
    changed = True
    while changed:
        changed = False
        for name, path, bases in classes:
            if name in found or name == "DataLoader":
                continue
            if any(b == "DataLoader" or b in found for b in bases):
                found[name] = path
                changed = True
    return found


def sharding_subclasses(
    modules: Iterable[Iterable[ClassBases]], forwarding: Iterable[str]
) -> set[str]:
    """The loader subclasses (`loader_subclasses`'s names) that the data pass shards: those
    whose own `super().__init__` passes a sampler (`forwarding`: every module's classes
    `whole_subclasses` leaves out), and their subclasses, to a fixed point."""
    classes = [each for module in modules for each in module]
    found = set(forwarding)
    changed = True
    while changed:
        changed = False
        for name, _, bases in classes:
            if name not in found and any(b in found for b in bases):
                found.add(name)
                changed = True
    return found


def evaluation_subclass_calls(
    tree: ast.Module, classes: dict[str, str], path: str
) -> Iterator[SubclassCall]:
    """Calls in `tree` (the module at `path`) of sharding loader classes defined in another
    module, with no keyword making them a training loader (`_trains_from`) and no
    `ddp_shard=` of their own: an evaluation loader's shape, sharded by the class."""
    for node in ast_nodes.listed(tree):
        if not isinstance(node, ast.Call):
            continue
        name = last_name(node.func)
        if name not in classes or classes[name] == path:
            continue
        if any(k.arg == "ddp_shard" or _trains_from(k.arg, k.value) for k in node.keywords):
            continue
        yield SubclassCall(node.lineno, node.col_offset + 1, name, classes[name])


def shuffled_subclass_calls(tree: ast.Module, classes: dict[str, str]) -> Iterator[SubclassCall]:
    """Calls of those classes in `tree` that build a training loader: `shuffle=` with a value
    other than False, or a `sampler=` / `batch_sampler=` of their own (not None, not a
    SequentialSampler). gentaiscool/end2end-asr-pytorch@2f78c6b builds its training loader
    as `AudioDataLoader(train_data, num_workers=..., batch_sampler=train_sampler)`, a project
    BucketingSampler of fixed bins: no `shuffle=`, so it was left whole without a word and
    every rank trained on every batch (class Q3)."""
    for node in ast_nodes.listed(tree):
        if not isinstance(node, ast.Call):
            continue
        name = last_name(node.func)
        if name not in classes:
            continue
        if any(_trains_from(k.arg, k.value) for k in node.keywords):
            yield SubclassCall(node.lineno, node.col_offset + 1, name, classes[name])


def _trains_from(keyword: str | None, value: ast.expr) -> bool:
    """The keyword argument makes the loader a training one: a shuffle that is not False,
    or a sampler that is neither None nor a SequentialSampler (which evaluation uses)."""
    if keyword == "shuffle":
        return not (isinstance(value, ast.Constant) and value.value is False)
    if keyword in ("sampler", "batch_sampler"):
        if isinstance(value, ast.Constant) and value.value is None:
            return False
        return not (isinstance(value, ast.Call) and last_name(value.func) == "SequentialSampler")
    return False


def subclass_notes(program: Program, project: Project) -> Iterator[tuple[int, list[Diagnostic]]]:
    """(module index, its notes): DP035 at each training loader built from a project
    subclass of DataLoader that the data pass does not shard; DP015 at an evaluation-shaped
    one built in another module from a subclass it does shard."""
    if not any(mentions(m.source.text, "DataLoader") for m in program.modules):
        return  # no class can name DataLoader as its base: no ast needed
    bases = [
        project.remembered(("class bases", m.real, m.path), partial(_bases, m))
        for m in program.modules
    ]
    classes = loader_subclasses(bases)
    if not classes:
        return
    # the passes' libcst reading, loaded only here: a program with no DataLoader subclass
    # (and every no-op run) loads no engine (tests/test_noop_imports.py)
    from dp2ddp.transforms.analysis.loader_builds import flagged_subclasses, whole_subclasses
    from dp2ddp.transforms.data.plan import EVAL_NAME

    forwarding = [
        name
        for m, module_bases in zip(program.modules, bases, strict=True)
        if any(any(b.endswith("DataLoader") for b in own) for _, _, own in module_bases)
        for name in {n for n, _, own in module_bases if any(b.endswith("DataLoader") for b in own)}
        - whole_subclasses(m.passing_tree())
    ]
    sharded = sharding_subclasses(bases, forwarding)
    flagged = {
        n
        for m in program.modules
        if mentions(m.source.text, "DataLoader")
        for n in flagged_subclasses(m.passing_tree())
        if not EVAL_NAME.search(n)
    }
    whole = {n: p for n, p in classes.items() if n not in sharded}
    shards = {n: p for n, p in classes.items() if n in sharded and n not in flagged}
    what = f"{title('DP035')}: {{}} (a DataLoader subclass, {{}})"
    for index, module in enumerate(program.modules):
        if not mentions(module.source.text, *classes):
            continue  # calls only what it names
        tree = module.passing_tree()
        notes = [
            Diagnostic(c.line, c.col, "DP035", what.format(c.cls, c.defined_in))
            for c in shuffled_subclass_calls(tree, whole)
        ]
        notes += [
            Diagnostic(c.line, c.col, "DP015", f"{title('DP015')}: {_sharded_here(c)}")
            for c in evaluation_subclass_calls(tree, shards, module.path)
        ]
        if notes:
            yield index, notes


def _bases(module: ProgramModule) -> tuple[ClassBases, ...]:
    return class_bases(module.path, module.passing_tree())


def _sharded_here(call: SubclassCall) -> str:
    """DP015's detail at an evaluation-shaped instance of a sharding subclass."""
    return (
        f"{call.cls} (a DataLoader subclass, {call.defined_in}) shards every loader it "
        "builds, this one too: where it evaluates, every figure of its loop is this rank's "
        "share unless summed over the ranks; build an evaluation loader from DataLoader "
        "itself to keep it whole on every rank"
    )
