"""The program's per-sample classes: its Datasets and the transforms they run (issue 28).

A DataLoader runs a Dataset's `__getitem__` (`__iter__`) once per sample of this rank's
shard, in its worker processes. A value drawn there is one sample's, this rank's data: made
rank 0's value (`ddp_rank0_value(random.randint, ...)`, rank_zero/run_dir.py) rank 1's k-th
sample would take rank 0's k-th draw, made for another sample, through the rendezvous store
from inside a worker, which hangs where the loader has workers. analysis/sample_code.py
finds that code in a module; this module gives it what only the whole program knows:

- which classes are Datasets: a class deriving from torch's Dataset or IterableDataset,
  transitively through the program's own classes in any module, whatever their names
  (round 24: zsyOAOA/VDNet's `class SimulateTrain(BaseDataSetImg)` in
  datasets/DenoisingDatasets.py, with `class BaseDataSetImg(uData.Dataset)` in the
  package's `__init__`: the random pick of a file in `__getitem__` was made rank 0's, so
  each rank's k-th sample loaded rank 0's k-th file);
- which transform classes a Dataset runs per sample: built in the list a `Compose` is
  handed, also a list built by `.append(...)` (sample_code.composed_classes); handed to a
  Dataset's constructor, directly, through a name bound to one, or as what a project
  function returns (`co_transform = get_co_transforms(cfg)`, returning `Compose(ts)`);
  or built in a per-sample class's own methods (`self.crop = RandomCrop(8)`), transitively.
  Their `__call__`/`forward` is per-sample code (round 24: lliuz/ARFlow's
  `RandomCrop.__call__` drawing `random.randint` for a crop, appended to a list handed to
  the project's own `Compose` and reached through `self.co_transform(...)` in a Dataset of
  another module, was made rank 0's value and hung the loader's workers).

Each module is summarised once (`sample_summary`, by `ast`, kept by the program hints);
`program_samples` joins the summaries into the program's ProgramHints.per_sample.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from dp2ddp.facts import SampleClasses
from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import dotted, import_table, resolved_name
from dp2ddp.transforms.analysis.sample_code import composed_classes

#: torch's Dataset classes (map-style and iterable).
DATASET_BASES = frozenset(
    f"torch.utils.data{module}.{name}"
    for module in ("", ".dataset")
    for name in ("Dataset", "IterableDataset")
)
#: torch's IterableDataset: a stream, no index a sampler could pick.
ITERABLE_BASES = frozenset(
    f"torch.utils.data{module}.IterableDataset" for module in ("", ".dataset")
)
#: Libraries whose classes are Datasets by where they live (`datasets.ImageFolder(root,
#: transform=...)`): what is handed to them runs per sample too.
_DATASET_MODULES = ("torchvision.datasets.", "torch.utils.data.")


@dataclass(frozen=True)
class SampleSummary:
    """What one module says of per-sample classes.

    composed: the classes it builds in a Compose's list (sample_code.composed_classes).
    classes: (qualified name, its bases as the module's imports name them) of each
        top-level class.
    handed: (the callee as resolved, else as spelled; the last name of what is handed)
        for each argument of a call that is an object built by a call (`C(...)`, or a name
        bound to one): the callee may be a Dataset's constructor.
    built: (last name of a top-level class, last name of a class its methods build).
    returns: (last name of a top-level function, last name of a call it returns).
    """

    composed: frozenset[str] = frozenset()
    classes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    handed: tuple[tuple[str, str], ...] = ()
    built: tuple[tuple[str, str], ...] = ()
    returns: tuple[tuple[str, str], ...] = ()


def sample_summary(name: str, tree: ast.Module, is_package: bool) -> SampleSummary:
    """The module's SampleSummary (`name`: its dotted name, "" for a file alone)."""
    table = import_table(tree, name, is_package)
    prefix = f"{name}." if name else ""
    local = {s.name for s in tree.body if isinstance(s, ast.ClassDef)}

    def spelled(node: ast.expr) -> str:
        if isinstance(node, ast.Name) and node.id in local:
            return prefix + node.id
        parts = dotted(node)
        return resolved_name(node, table) or (".".join(parts) if parts else "")

    classes: list[tuple[str, tuple[str, ...]]] = []
    built: set[tuple[str, str]] = set()
    returns: set[tuple[str, str]] = set()
    for statement in tree.body:
        if isinstance(statement, ast.ClassDef):
            classes.append((prefix + statement.name, tuple(spelled(b) for b in statement.bases)))
            built.update((statement.name, c) for c in _calls_in(statement))
        elif isinstance(statement, ast.FunctionDef):
            for node in ast_nodes.walk(statement):
                if isinstance(node, ast.Return) and isinstance(node.value, ast.Call):
                    returns.add((statement.name, _last(node.value.func)))
    bound = _bound_calls(tree)
    handed: set[tuple[str, str]] = set()
    for call in ast_nodes.listed(tree):
        if type(call) is not ast.Call:
            continue
        callee = spelled(call.func)
        if not _last_part(callee)[:1].isupper() and not callee.startswith(_DATASET_MODULES):
            continue  # a constructor (a class's name), or a library's Dataset or loader
        values = [*call.args, *(k.value for k in call.keywords)]
        handed.update((callee, c) for v in values for c in _made(v, bound))
    return SampleSummary(
        composed_classes(tree),
        tuple(classes),
        tuple(sorted(handed)),
        tuple(sorted(built)),
        tuple(sorted(returns)),
    )


def program_samples(summaries: Iterable[SampleSummary]) -> SampleClasses:
    """The program's SampleClasses from its modules' summaries."""
    summaries = list(summaries)
    bases = {q: b for s in summaries for q, b in s.classes}
    datasets, lasts = _subclasses(bases, DATASET_BASES, True)
    iterables, iterable_lasts = _subclasses(bases, ITERABLE_BASES, False)
    returns: dict[str, set[str]] = {}
    built: dict[str, set[str]] = {}
    for s in summaries:
        for function, cls in s.returns:
            returns.setdefault(function, set()).add(cls)
        for owner, cls in s.built:
            built.setdefault(owner, set()).add(cls)
    transforms: set[str] = set().union(*(s.composed for s in summaries))
    for s in summaries:
        for callee, cls in s.handed:
            if _last_part(callee) == "DataLoader":
                lasts.add(cls)  # a Dataset by its use, whatever its bases (handed_datasets)
            elif _last_part(callee) in lasts or callee.startswith(_DATASET_MODULES):
                transforms.add(cls)
    todo = [*transforms, *lasts]
    seen: set[str] = set()
    while todo:  # what a function returns; what a per-sample class builds
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        more = returns.get(name, set()) | built.get(name, set())
        transforms |= more
        todo += more
    # the program's own classes only: a library class's methods are no code of the program
    own = {_last_part(q) for q in bases}
    return SampleClasses(
        frozenset(datasets | lasts),
        frozenset(transforms & own),
        frozenset(iterables | iterable_lasts),
    )


def _subclasses(
    bases: Mapping[str, tuple[str, ...]], roots: frozenset[str], by_name: bool
) -> tuple[set[str], set[str]]:
    """The program's classes deriving from one of `roots` (torch's), through its own
    classes in any module: their qualified names and their last names. `by_name`: a library
    class named "...Dataset" counts as a root too (_dataset)."""
    found: set[str] = set()
    lasts: set[str] = set()
    changed = True
    while changed:  # a subclass of one is one too, in any module
        changed = False
        for qualified, of in bases.items():
            if qualified in found or not any(
                _dataset(b, found, lasts, bases, roots, by_name) for b in of
            ):
                continue
            found.add(qualified)
            lasts.add(_last_part(qualified))
            changed = True
    return found, lasts


def _dataset(
    base: str,
    datasets: set[str],
    lasts: set[str],
    known: Mapping[str, object],
    roots: frozenset[str] = DATASET_BASES,
    by_name: bool = True,
) -> bool:
    """`base` names a Dataset: torch's (`roots`), one of the program's (by qualified name,
    or by its last name where the program defines no class of that name: a package's
    re-export), or (`by_name`) a library class named "...Dataset"."""
    last = _last_part(base)
    if base in roots or base in datasets:
        return True
    if base in known:
        return False
    return last in lasts or by_name and last.endswith("Dataset")


def _calls_in(node: ast.AST) -> set[str]:
    """The classes (capitalised names: kept small for a program of thousands of classes)
    whose objects `node` builds."""
    calls = (_last(n.func) for n in ast_nodes.walk(node) if isinstance(n, ast.Call))
    return {c for c in calls if c[:1].isupper()}


def _bound_calls(tree: ast.Module) -> dict[str, set[str]]:
    """name -> last names of the calls the module binds it to (`t = Crop(8)`), anywhere."""
    found: dict[str, set[str]] = {}
    for node in ast_nodes.listed(tree):
        if type(node) is ast.Assign and isinstance(node.value, ast.Call):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found.setdefault(target.id, set()).add(_last(node.value.func))
    return found


def _made(value: ast.expr, bound: dict[str, set[str]]) -> set[str]:
    if isinstance(value, ast.Call):
        return {_last(value.func)} - {""}
    if isinstance(value, ast.Name):
        return bound.get(value.id, set()) - {""}
    return set()


def _last(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else ""


def _last_part(name: str) -> str:
    return name.rpartition(".")[2]
