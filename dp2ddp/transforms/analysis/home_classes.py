"""The classes of a program's modules that no other module names (ProgramHints.home_classes).

A class whose name no other module reads (as a name, an attribute, an imported name or a
string: `getattr(models, "Net")`) nor reads free (a star import's name) is built only by
its own module: what its module's calls hand it is all it is ever handed
(hazards/unbuilt_norms.py: a BatchNorm built under a flag every construction leaves off).
"""

from __future__ import annotations

from collections.abc import Sequence


def home_classes(
    modules: Sequence[tuple[frozenset[str], frozenset[str], frozenset[str]]],
) -> list[frozenset[str]]:
    """For each module `(its top-level classes, the names it refers to, the names it reads
    as plain names without binding them)`, its classes no other module names."""
    named: dict[str, int] = {}
    for _, refers, free in modules:
        for name in refers | free:
            named[name] = named.get(name, 0) + 1
    result: list[frozenset[str]] = []
    for classes, refers, free in modules:
        own = refers | free
        result.append(
            frozenset(c for c in classes if named.get(c, 0) - (1 if c in own else 0) <= 0)
        )
    return result
