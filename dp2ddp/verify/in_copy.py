"""Where the user's paths lie in verify's copy of the project.

verify migrates and runs the program in a copy of its project (project.py): the migrated
run's working folder, its PYTHONPATH folders and the files the original made are each the
same place in the copy. One home for that mapping, free of libcst (session.py imports it for
a migrated script given on the command line too).
"""

from __future__ import annotations

import os
from pathlib import Path


def search_path_in_copy(search_path: str, cwd: Path, root: Path, copy: Path) -> str:
    """A PYTHONPATH value with each of its folders inside the user's project (relative ones
    taken against `cwd`, as Python takes them) at its place in the copy, absolute; the other
    folders as they are. A shell script's PYTHONPATH puts the program's own modules there
    (kaituoxu/X-Punctuator: src/data, src/solver): left pointing at the user's tree, the copy's
    migration missed them and the migrated run imported the user's unmigrated modules, so verify
    reported the old failures of a migration that runs right (docs/real-world.md, stop 34)."""
    moved = []
    for entry in search_path.split(os.pathsep):
        folder = (cwd / entry).resolve() if entry else None
        if folder is not None and folder.is_relative_to(root):
            entry = str(copy / folder.relative_to(root))
        moved.append(entry)
    return os.pathsep.join(moved)


def migrated_cwd(cwd: Path, copy: tuple[Path, Path] | None) -> Path:
    """The migrated run's working directory: the same place in the project's copy."""
    if copy is None:
        return cwd
    copied, root = copy
    resolved = cwd.resolve()
    if resolved.is_relative_to(root):
        return copied / resolved.relative_to(root)
    return cwd


def migrated_environ(cwd: Path, copy: tuple[Path, Path] | None) -> dict[str, str]:
    """The migrated run's environment before launch's additions: its PYTHONPATH folders
    inside the project at their place in the copy (search_path_in_copy), so that it
    imports the migrated modules, not the user's."""
    environ = dict(os.environ)
    if copy is not None and environ.get("PYTHONPATH"):
        copied, root = copy
        environ["PYTHONPATH"] = search_path_in_copy(
            environ["PYTHONPATH"], cwd.resolve(), root.resolve(), copied.resolve()
        )
    return environ


def in_migrated_copy(path: str, copy: tuple[Path, Path] | None) -> str:
    """A path of the original run (in the user's project) at its place in the migrated
    run's copy, to compare what each made."""
    if copy is None:
        return path
    migrated, root = copy
    resolved = Path(path)
    return str(migrated / resolved.relative_to(root)) if resolved.is_relative_to(root) else path
