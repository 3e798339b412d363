"""Which paths under a folder `.gitignore` excludes, as `git check-ignore` says.

Folder mode (`dp2ddp migrate DIR`) does not rewrite ignored copies of code (a wandb/ run's
code snapshot, outputs/), and verify's project copy links ignored data and checkpoints
instead of copying them. In a git work tree git itself answers (`git ls-files --others
--ignored --exclude-standard --directory`: untracked ignored files, whole ignored folders
collapsed; a tracked file is never ignored). Outside one, or without git, the `.gitignore`
files of the folder and its subfolders are read with git's pattern rules (`!` negation, a
trailing `/` for folders, `/` anchoring, `*`, `?`, `[...]`, `**`); a file inside an ignored
folder cannot be re-included, as in git.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from dataclasses import dataclass

GITIGNORE = ".gitignore"
#: Folders never looked into for .gitignore files by the fallback (they are not code).
_NOT_WALKED = frozenset({".git", ".hg", ".svn", "__pycache__", "node_modules"})


@dataclass(frozen=True)
class Ignored:
    """The ignored paths under `root` (absolute, real): folders (all they hold) and files."""

    root: str
    folders: frozenset[str] = frozenset()
    files: frozenset[str] = frozenset()
    #: "git" or ".gitignore" (the fallback parser), for messages
    source: str = "git"

    def __contains__(self, path: object) -> bool:
        if not isinstance(path, str) or not (self.folders or self.files):
            return False
        path = _real(path)
        if path in self.files or path in self.folders:
            return True
        parent = os.path.dirname(path)
        while parent.startswith(self.root) and parent != os.path.dirname(parent):
            if parent in self.folders:
                return True
            parent = os.path.dirname(parent)
        return False

    def __bool__(self) -> bool:
        return bool(self.folders or self.files)


def _real(path: str) -> str:
    """`path` with its folder resolved (not the entry itself: a link is judged by its name)."""
    head, tail = os.path.split(os.path.abspath(path))
    return os.path.join(os.path.realpath(head), tail)


def ignored_under(folder: str) -> Ignored:
    """The paths `.gitignore` excludes under `folder` (cached per folder)."""
    return _ignored_under(os.path.realpath(folder))


@functools.lru_cache(maxsize=64)
def _ignored_under(root: str) -> Ignored:
    found = _from_git(root)
    if found is not None:
        return found
    return _from_files(root)


def _from_git(root: str) -> Ignored | None:
    git = shutil.which("git")
    if git is None:
        return None
    try:
        inside = subprocess.run(
            [git, "-C", root, "rev-parse", "--is-inside-work-tree"],
            capture_output=True, text=True, timeout=30, check=False,
        )  # fmt: skip
        if inside.returncode != 0 or inside.stdout.strip() != "true":
            return None
        listed = subprocess.run(
            [git, "-C", root, "ls-files", "--others", "--ignored", "--exclude-standard",
             "--directory", "-z"],
            capture_output=True, timeout=120, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    if listed.returncode != 0:
        return None
    folders: set[str] = set()
    files: set[str] = set()
    for raw in listed.stdout.split(b"\0"):
        if not raw:
            continue
        name = os.fsdecode(raw)
        path = os.path.normpath(os.path.join(root, name))
        (folders if name.endswith("/") else files).add(path)
    return Ignored(root, frozenset(folders), frozenset(files), "git")


# -- the fallback: .gitignore files read with git's rules -------------------------------------
@dataclass(frozen=True)
class Rule:
    base: str  # the folder of the .gitignore that holds the rule
    regex: re.Pattern[str]
    negate: bool
    folder_only: bool

    def matches(self, path: str, is_folder: bool) -> bool:
        if self.folder_only and not is_folder:
            return False
        rel = os.path.relpath(path, self.base).replace(os.sep, "/")
        return not rel.startswith("../") and bool(self.regex.fullmatch(rel))


def parse_rules(text: str, base: str) -> list[Rule]:
    """The rules of one .gitignore file in folder `base`."""
    rules = []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        line = re.sub(r"(?<!\\)\s+$", "", line)
        negate = line.startswith("!")
        if negate:
            line = line[1:]
        if line.startswith("\\"):
            line = line[1:]
        folder_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        body = _glob_regex(line)
        regex = body if anchored else f"(?:.*/)?{body}"
        rules.append(Rule(base, re.compile(regex, re.DOTALL), negate, folder_only))
    return rules


def _glob_regex(pattern: str) -> str:
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == len(pattern):
            out.append("/.*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and "]" in pattern[i + 2 :]:
            end = pattern.index("]", i + 2)
            inner = pattern[i + 1 : end].replace("\\", "\\\\")
            out.append("[" + ("^" + inner[1:] if inner.startswith("!") else inner) + "]")
            i = end + 1
        elif pattern[i] == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)


def is_ignored(rules: list[Rule], path: str, is_folder: bool) -> bool:
    """The last rule that matches decides (git's order: later files and lines win)."""
    ignored = False
    for rule in rules:
        if rule.negate == ignored and rule.matches(path, is_folder):
            ignored = not rule.negate
    return ignored


def _from_files(root: str) -> Ignored:
    folders: set[str] = set()
    files: set[str] = set()

    def walk(folder: str, inherited: list[Rule]) -> None:
        rules = inherited
        try:
            with open(os.path.join(folder, GITIGNORE), encoding="utf-8") as handle:
                rules = inherited + parse_rules(handle.read(), folder)
        except (OSError, UnicodeDecodeError):
            pass
        try:
            with os.scandir(folder) as scan:
                entries = sorted(scan, key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            try:
                is_folder = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if rules and is_ignored(rules, entry.path, is_folder):
                (folders if is_folder else files).add(_real(entry.path))
            elif is_folder and entry.name not in _NOT_WALKED:
                walk(entry.path, rules)

    walk(root, [])
    return Ignored(root, frozenset(folders), frozenset(files), GITIGNORE)
