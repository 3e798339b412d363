"""A dataset's own random generators: found, seeded per sample, and named as evidence.

verify loads each sample under a seed of its index (alignment.py) so that a random
augmentation gives a sample the same draw whichever process loads it. That covers the
global generators only. A dataset that keeps a generator of its own (`self.rng =
random.Random(seed)`, a numpy `RandomState`/`Generator`, a `torch.Generator`) draws from it
in the order the process reads its samples: the original reads the whole batch, each rank
its half, so the k-th sample of a rank takes another draw than the same sample in the
original, and verify saw "samples missing" and blamed the DataLoader (issue 28). Here
such generators are found on the dataset (its attributes, a few levels down: a transform
object's generator, a Subset's dataset) and among the globals its `__getitem__` reads;
each is seeded by the sample's seed for the read and put back afterwards, as the global
ones are. torch is looked up, not imported: the harness reads the records without it. What
cannot be seeded (`random.SystemRandom`) is recorded with its line, so
that a difference it causes is reported as what it is.
"""

from __future__ import annotations

import inspect
import os
import random
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

#: How far below the dataset the attributes are searched, and the largest container
#: looked into (a list of 50,000 file names is data, not configuration).
_DEPTH = 3
_CONTAINER = 32


@dataclass(frozen=True)
class OwnRng:
    """One generator a dataset draws from: `name` as the script spells it (`Masked.rng`),
    where it is created (`file.py:18`) and drawn (`file.py:23`), when found."""

    name: str
    rng: Any
    kind: str
    created: str = ""
    drawn: str = ""

    @property
    def seedable(self) -> bool:
        return self.kind != "random.SystemRandom"

    def record(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "created": self.created,
            "drawn": self.drawn,
            "seedable": self.seedable,
        }


def _kind(value: object) -> str | None:
    if isinstance(value, random.SystemRandom):
        return "random.SystemRandom"
    if isinstance(value, random.Random) and value is not getattr(random, "_inst", None):
        return "random.Random"
    torch = sys.modules.get("torch")
    if (
        torch is not None
        and isinstance(value, torch.Generator)
        and value is not torch.default_generator
    ):
        return "torch.Generator"
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        if isinstance(value, numpy.random.RandomState):
            # numpy's global one (np.random.mtrand._rand) is seeded with the others
            global_state = getattr(numpy.random.mtrand, "_rand", None)
            return None if value is global_state else "numpy.random.RandomState"
        if isinstance(value, numpy.random.Generator):
            return "numpy.random.Generator"
    return None


def find(dataset: Any) -> list[OwnRng]:
    """The generators `dataset` draws from other than the global ones, each once."""
    found: dict[int, OwnRng] = {}
    for name, owner, attr, value in _walk(dataset, type(dataset).__name__, _DEPTH, set()):
        kind = _kind(value)
        if kind is not None and id(value) not in found:
            created, drawn = _lines(owner, attr)
            found[id(value)] = OwnRng(name, value, kind, created, drawn)
    for name, value, created in _read_globals(dataset):
        kind = _kind(value)
        if kind is not None and id(value) not in found:
            found[id(value)] = OwnRng(name, value, kind, created)
    return list(found.values())


def _walk(obj: Any, path: str, depth: int, seen: set[int]) -> Iterator[tuple[str, Any, str, Any]]:
    """(path, owner, attribute, value) for the attributes below `obj`."""
    if depth <= 0 or id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, list | tuple):
        items: list[tuple[str, Any]] = (
            [(f"{path}[{i}]", v) for i, v in enumerate(obj)] if len(obj) <= _CONTAINER else []
        )
        for name, value in items:
            yield name, None, "", value
            yield from _walk(value, name, depth - 1, seen)
        return
    if isinstance(obj, dict):
        if len(obj) <= _CONTAINER:
            for key, value in list(obj.items()):
                name = f"{path}[{key!r}]"
                yield name, None, "", value
                yield from _walk(value, name, depth - 1, seen)
        return
    if _opaque(obj):
        return
    try:
        attributes = list(vars(obj).items())
    except TypeError:
        return
    for attr, value in attributes:
        name = f"{path}.{attr}"
        yield name, obj, attr, value
        if _kind(value) is None:
            yield from _walk(value, name, depth - 1, seen)


def _opaque(obj: object) -> bool:
    """Values whose attributes are not a dataset's configuration."""
    numpy = sys.modules.get("numpy")
    torch = sys.modules.get("torch")
    return (
        isinstance(obj, type | str | bytes | int | float)
        or (torch is not None and isinstance(obj, torch.Tensor))
        or inspect.ismodule(obj)
        or inspect.isroutine(obj)
        or (numpy is not None and isinstance(obj, numpy.ndarray))
        or _kind(obj) is not None
    )


def _read_globals(dataset: Any) -> Iterator[tuple[str, Any, str]]:
    """Module-level generators the dataset's `__getitem__` reads by name."""
    method = getattr(type(dataset), "__getitem__", None)
    code = getattr(method, "__code__", None)
    if code is None:
        return
    namespace: dict[str, Any] = getattr(method, "__globals__", {})
    for name in code.co_names:
        value = namespace.get(name)
        if value is not None and _kind(value) is not None:
            yield name, value, _global_line(code.co_filename, name)


def _display(path: str) -> str:
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return os.path.basename(path)
    return os.path.basename(path) if relative.startswith("..") else relative


def _lines(owner: Any, attr: str) -> tuple[str, str]:
    """Where `owner.attr` is assigned, and where it is drawn from, in the classes of
    `owner` (its own first, then those it inherits from)."""
    if owner is None or not attr.isidentifier():
        return "", ""
    assigned = re.compile(rf"\bself\.{attr}\s*(:[^=]*)?=(?!=)")
    used = re.compile(rf"\bself\.{attr}\b")
    created = drawn = ""
    for cls in type(owner).__mro__[:-1]:
        try:
            lines, start = inspect.getsourcelines(cls)
            path = _display(inspect.getsourcefile(cls) or "")
        except (OSError, TypeError):
            continue
        for offset, line in enumerate(lines):
            code = line.split("#", 1)[0]
            if not created and assigned.search(code):
                created = f"{path}:{start + offset}"
            elif not drawn and used.search(code) and not assigned.search(code):
                drawn = f"{path}:{start + offset}"
        if created and drawn:
            break
    return created, drawn


def _global_line(filename: str, name: str) -> str:
    try:
        with open(filename, encoding="utf-8") as handle:
            lines = handle.readlines()
    except OSError:
        return ""
    assigned = re.compile(rf"^{re.escape(name)}\s*(:[^=]*)?=(?!=)")
    for number, line in enumerate(lines, 1):
        if assigned.match(line):
            return f"{_display(filename)}:{number}"
    return ""


def seed(rngs: list[OwnRng], sample_seed: int) -> Callable[[], None]:
    """Seed every seedable generator with `sample_seed`; the returned call restores them."""
    restores: list[Callable[[], None]] = []
    for own in rngs:
        if own.seedable:
            restores.append(_seed_one(own.rng, own.kind, sample_seed))

    def restore() -> None:
        for undo in reversed(restores):
            undo()

    return restore


def _seed_one(rng: Any, kind: str, sample_seed: int) -> Callable[[], None]:
    if kind == "random.Random":
        py_state = rng.getstate()
        rng.seed(sample_seed)
        return lambda: rng.setstate(py_state)
    if kind == "torch.Generator":
        torch_state = rng.get_state()
        rng.manual_seed(sample_seed)
        return lambda: rng.set_state(torch_state)
    if kind == "numpy.random.RandomState":
        np_state = rng.get_state()
        rng.seed(sample_seed % 2**32)
        return lambda: rng.set_state(np_state)
    bit_generator = rng.bit_generator  # numpy.random.Generator
    bit_state = bit_generator.state
    bit_generator.state = type(bit_generator)(sample_seed).state

    def undo() -> None:
        bit_generator.state = bit_state

    return undo


def describe(records: list[dict[str, Any]]) -> str:
    """`Masked.rng (random.Random, created at x.py:18, drawn at x.py:23)`, for reports."""
    parts = []
    for own in records:
        places = [
            f"{what} at {where}"
            for what, where in (("created", own.get("created")), ("drawn", own.get("drawn")))
            if where
        ]
        parts.append(f"{own.get('name')} ({', '.join([str(own.get('kind')), *places])})")
    return "; ".join(parts)
