"""The functions of a module a data loader runs per sample: a Dataset's own data (issue 29).

A Dataset's `__getitem__` (and the other per-sample methods), the methods of its class it
calls and the module's functions it calls by name, transitively, run once per sample of
this rank's shard. A value read there names this rank's data: a random nearby frame that
`get_near(index)` draws and then opens (fangchangma/self-supervised-depth-completion's
`get_rgb_near`) is one sample's input, not a name the ranks share. Made rank 0's value, rank
1's k-th sample would take rank 0's k-th draw, made for another sample, and wait for the
store's timeout where it draws more often than rank 0 did (rank_zero/run_dir.py skips such
reads). Whether the ranks draw alike there is DP067's question (shared_draws).

A transform class's `__call__` (or `forward`) is per-sample code too where an object of it
is built in the list a `Compose` (torchvision's, the program's own, albumentations') is
handed, in this module or another (ProgramHints.per_sample): the Dataset runs the
composed transforms on each sample, in the loader's workers (stop 60, round 12 v4-C:
hzxie/Pix2Vox@0596d5e's `RandomBackground.__call__` picking a background file by
`random.choice` was made `ddp_rank0_value(random.choice, ...)`, rank 0's pick for rank 1's
sample, a store key per call in each worker). Applied to a batch instead, the draw is still
this rank's, for its own rows.

A function also called outside per-sample code is not listed: its other calls may name a
shared file, and the agreement rule keeps them.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.facts import SampleClasses
from dp2ddp.flow.bindings import bindings
from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.names import DATALOADER
from dp2ddp.transforms._support.nodes import assigned_value, code_of, name_of, nodes_of, walk

if TYPE_CHECKING:
    from dp2ddp.transforms._support.base import MigrationTransform

#: The bases that make a class a map-style or iterable Dataset.
_DATASET_BASES = frozenset(
    f"torch.utils.data{module}.{name}"
    for module in ("", ".dataset")
    for name in ("Dataset", "IterableDataset")
)

#: Methods a loader calls per sample or per pass.
_PER_SAMPLE = frozenset({"__getitem__", "__getitems__", "__iter__", "__next__"})
#: Calls handed a list of transform objects, each run on a sample in turn.
COMPOSERS = frozenset({"Compose", "RandomApply", "RandomChoice", "RandomOrder", "OneOf"})
#: No program facts (a file migrated alone).
_NO_SAMPLES = SampleClasses()
#: The list methods that put an item (the last argument) or items in a list.
_LIST_PUTS = frozenset({"append", "extend", "insert"})
#: The methods a composed transform object runs.
_TRANSFORM_METHODS = ("__call__", "forward")


def composed_classes(tree: ast.Module) -> frozenset[str]:
    """The (last) names of the classes whose objects a module builds in the list or tuple
    it hands a `Compose` (`T.Compose([Crop(8), utils.transforms.RandomBackground(...)])`).
    Read off the module's one listing (ast_nodes.listed, kept per tree for the program's
    facts), calls by exact type: stop 60's `ast.walk` walked every module again."""
    found: set[str] = set()
    lists = _listed_calls(tree)
    for call in ast_nodes.listed(tree):
        if type(call) is not ast.Call or not call.args:
            continue
        func = call.func  # _last's reading, by exact types: no call for each call
        if type(func) is ast.Name:
            name = func.id
        elif type(func) is ast.Attribute:
            name = func.attr
        else:
            continue
        if name not in COMPOSERS:
            continue
        listed = call.args[0]
        if isinstance(listed, (ast.List, ast.Tuple)):
            found.update(_last(e.func) for e in listed.elts if isinstance(e, ast.Call))
        elif isinstance(listed, ast.Name):
            found |= lists.get(listed.id, set())
    return frozenset(found - {""})


def _listed_calls(tree: ast.Module) -> dict[str, set[str]]:
    """name -> last names of the calls the module puts in a list bound to it, anywhere:
    `ts = [Crop(8)]`, `ts += [...]`, `ts.append(Crop(8))`, `ts.extend([...])`,
    `ts.insert(0, Crop(8))`: a `Compose(ts)` runs them (round 24: lliuz/ARFlow's
    `get_co_transforms`, `transforms.append(RandomCrop(...))`, `return Compose(transforms)`)."""
    found: dict[str, set[str]] = {}

    def put(name: str, values: list[ast.expr]) -> None:
        for value in values:
            elements = value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]
            calls = {_last(e.func) for e in elements if isinstance(e, ast.Call)}
            found.setdefault(name, set()).update(calls)

    for node in ast_nodes.listed(tree):
        if type(node) is ast.Assign and isinstance(node.value, (ast.List, ast.Tuple)):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    put(target.id, [node.value])
        elif type(node) is ast.AugAssign and isinstance(node.target, ast.Name):
            put(node.target.id, [node.value])
        elif type(node) is ast.Call and type(node.func) is ast.Attribute:
            owner = node.func.value
            if isinstance(owner, ast.Name) and node.func.attr in _LIST_PUTS and node.args:
                put(owner.id, node.args[-1:])
    return found


def _last(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else ""


def per_sample_functions(
    module: cst.Module, t: MigrationTransform, samples: SampleClasses = _NO_SAMPLES
) -> frozenset[int]:
    """ids of the FunctionDefs of `module` (the tree pass `t` reads) a loader runs per
    sample (see the docstring); `samples`: the program's Datasets and the transforms they
    run (sample_classes.py)."""
    qualified_names = t.qualified_names
    classes = nodes_of(module, cst.ClassDef)
    datasets: set[str] = handed_datasets(module, t)  # and another module's DataLoader's:
    datasets |= {c.name.value for c in classes if c.name.value in samples.datasets}
    changed = True
    while changed:  # a subclass of a Dataset of this module is one too
        changed = False
        for cls in classes:
            if cls.name.value in datasets:
                continue
            for base in cls.bases:
                last = name_of(base.value)
                if (
                    qualified_names(base.value) & _DATASET_BASES
                    or last.endswith("Dataset")
                    or last in datasets
                    or last in samples.datasets  # a Dataset of another module's (issue 28)
                ):
                    datasets.add(cls.name.value)
                    changed = True
                    break
    functions = {
        s.name.value: s
        for s in (module.body if isinstance(module, cst.Module) else [])
        if isinstance(s, cst.FunctionDef)
    }
    composed = samples.transforms | _composed_here(module)
    todo: list[cst.FunctionDef] = []
    for cls in classes:
        if not isinstance(cls.body, cst.IndentedBlock):
            continue
        if cls.name.value in datasets:
            roots: Iterable[str] = _PER_SAMPLE
        elif cls.name.value in composed:
            roots = _TRANSFORM_METHODS
        else:
            continue
        methods = {s.name.value: s for s in cls.body.body if isinstance(s, cst.FunctionDef)}
        todo += [methods[name] for name in roots if name in methods]
        todo += _self_callees(cls, methods, todo)
    found: dict[int, cst.FunctionDef] = {}
    while todo:
        function = todo.pop()
        if id(function) in found:
            continue
        found[id(function)] = function
        for call in walk(function.body, skip_scopes=True):
            if isinstance(call, cst.Call) and isinstance(call.func, cst.Name):
                callee = functions.get(call.func.value)
                if callee is not None:
                    todo.append(callee)
    kept = dict(found)
    calls = [
        (call, call.func.value)
        for call in nodes_of(module, cst.Call)
        if isinstance(call.func, cst.Name) and call.func.value in functions
    ]
    while True:  # a function called outside kept code runs there too, and so do its callees
        inside = {id(node) for function in kept.values() for node in walk(function)}
        elsewhere = {name for call, name in calls if id(call) not in inside}
        dropped = [
            key
            for key, function in kept.items()
            if functions.get(function.name.value) is function and function.name.value in elsewhere
        ]
        if not dropped:
            return frozenset(kept)
        for key in dropped:
            del kept[key]


def handed_datasets(module: cst.Module, t: MigrationTransform) -> set[str]:
    """The names of the classes whose objects a DataLoader of `module` is handed (`DataLoader(
    Noisy(...))`, or a name bound to one): Datasets by their use, whatever their bases
    (WenbinLee/DN4@440857b's `class FewShotDataSet(object)` drawing its episodes while it is
    built, stop 49 b3-B; round 36, MindVu/AAMSupCon@872877c's `class train_loader(object)`,
    whose `__getitem__` picks a noise file per sample by `random.choice`, made rank 0's pick
    for rank 1's sample). The one home of this reading (shared_draws, rank_zero)."""
    loaded: set[str] = set()
    for call in nodes_of(module, cst.Call):
        if not t.matches(call.func, DATALOADER):
            continue
        given = [a.value for a in call.args if a.keyword is None and not a.star][:1]
        given += [a.value for a in call.args if a.keyword and a.keyword.value == "dataset"]
        for value in given:
            values = [value]
            if isinstance(value, cst.Name):
                for referent in bindings(module).referents(value):
                    bound = assigned_value(referent.node, t)
                    if bound is not None:
                        values.append(bound)
            loaded |= {name_of(v.func) for v in values if isinstance(v, cst.Call)}
    return loaded - {""}


def _composed_here(module: cst.Module) -> frozenset[str]:
    """composed_classes of `module` itself (a file migrated alone has no program hints)."""
    found: set[str] = set()
    for call in nodes_of(module, cst.Call):
        if name_of(call.func) not in COMPOSERS or not call.args:
            continue
        listed = call.args[0].value
        if isinstance(listed, (cst.List, cst.Tuple)):
            found.update(
                name_of(e.value.func)
                for e in listed.elements
                if isinstance(e.value, cst.Call) and name_of(e.value.func)
            )
    return frozenset(found)


def _self_callees(
    cls: cst.ClassDef, methods: dict[str, cst.FunctionDef], roots: list[cst.FunctionDef]
) -> list[cst.FunctionDef]:
    """The methods of `cls` the per-sample methods call through `self.` (transitively)."""
    found: list[cst.FunctionDef] = []
    todo = [r for r in roots if r in methods.values()]
    while todo:
        for call in walk(todo.pop().body, skip_scopes=True):
            if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
                continue
            callee = methods.get(call.func.attr.value)
            if code_of(call.func.value) == "self" and callee is not None:
                if callee not in found and callee.name.value != "__init__":
                    found.append(callee)
                    todo.append(callee)
    return found
