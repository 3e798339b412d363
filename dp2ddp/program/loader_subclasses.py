"""Loaders built from a project class that subclasses DataLoader (DP035).

The data pass shards `torch.utils.data.DataLoader(...)` calls. A project class that
subclasses DataLoader and forwards its arguments (kaituoxu/Conv-TasNet@0d9d9dc:
`class AudioDataLoader(data.DataLoader)` in data.py, adding a collate_fn; train.py builds
`AudioDataLoader(tr_dataset, batch_size=1, shuffle=args.shuffle)`) is not a DataLoader
call, so its loader stays whole and every rank trains on all of it. Until the data pass
follows such classes, each call of one that passes `shuffle=`, or a `sampler=` or
`batch_sampler=` of its own (a training loader), is named, in a program that uses
DataParallel: never in silence.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import last_name


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
