"""Folders a module puts on sys.path (dp2ddp/program/sys_path.py): the spellings research
repositories use, and those that stay unknown (never guessed)."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from dp2ddp.program.sys_path import resolve_edits, sys_path_edits

FILE = "/repo/tools/_init_paths.py"


def edits(source: str) -> list[tuple[bool, str]]:
    return list(sys_path_edits(ast.parse(source), FILE))


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (  # HRNet's tools/_init_paths.py
            "import os.path as osp\nimport sys\n"
            "def add_path(path):\n    if path not in sys.path:\n        sys.path.insert(0, path)\n"
            "this_dir = osp.dirname(__file__)\nlib_path = osp.join(this_dir, '..', 'lib')\n"
            "add_path(lib_path)\n",
            [(True, "/repo/tools/../lib")],
        ),
        (
            "import os, sys\nhere = os.path.dirname(os.path.abspath(__file__))\n"
            "sys.path.insert(0, os.path.join(here, 'common'))\n",
            [(True, "/repo/tools/common")],
        ),
        (
            "import sys\nfrom pathlib import Path\n"
            "sys.path.append(str(Path(__file__).resolve().parent.parent / 'src'))\n",
            [(False, "/repo/src")],
        ),
        (
            "import sys\nfrom pathlib import Path\n"
            "sys.path.append(str(Path(__file__).parents[1]))\n",
            [(False, "/repo")],
        ),
        (
            "import sys\nsys.path.append('.')\nsys.path.insert(1, 'lib')\n",
            [(False, "."), (False, "lib")],
        ),
        (
            "import sys\ntry:\n    sys.path.append('third_party')\nexcept Exception:\n    pass\n",
            [(False, "third_party")],
        ),
        (  # pytorch_stacked_hourglass's data/MPII/dp.py: in a function, then an import there
            "import os, sys\ndef init(config):\n"
            "    here = os.path.dirname(os.path.abspath(__file__))\n"
            "    sys.path.insert(0, here)\n    import ref as ds\n    return ds\n",
            [(False, "/repo/tools")],  # appended: it must not shadow other modules
        ),
    ],
)
def test_static_edits_are_read(source: str, expected: list[tuple[bool, str]]) -> None:
    assert edits(source) == expected


@pytest.mark.parametrize(
    "source",
    [
        "import sys\nsys.path.append(args.root)\n",  # known at run time only
        "import sys, os\nsys.path.append(os.environ['LIB'])\n",
        "import sys\ndef main():\n    sys.path.append('lib')\n",  # no import after it there
        "import sys\ndef main():\n    import lib\n    sys.path.append('lib')\n",
        "import sys\nroot = get_root()\nsys.path.append(root)\n",
        "import sys\nd = 'lib'\nd = compute()\nsys.path.append(d)\n",  # rebound: unknown
    ],
)
def test_unknown_edits_are_not_guessed(source: str) -> None:
    assert edits(source) == []


def test_resolved_against_the_root_and_kept_only_when_the_folder_exists(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    front, back = resolve_edits(
        ((True, "lib"), (False, str(tmp_path / "tools" / ".." / "lib")), (False, "missing")),
        str(tmp_path),
    )
    assert front == [str(tmp_path / "lib")]
    assert back == [os.path.normpath(tmp_path / "lib")]


def test_sys_path_zero_is_the_script_folder_of_an_entry_script() -> None:
    """`sys.path[0]` (audioset_tagging_cnn's `os.path.join(sys.path[0], '../utils')`) is the
    entry script's folder; in a module that is not run as a script it stays unknown."""
    source = "import os, sys\nsys.path.insert(1, os.path.join(sys.path[0], '../utils'))\n"
    tree = ast.parse(source)
    assert sys_path_edits(tree, FILE, script=True) == ((False, "/repo/tools/../utils"),)
    assert sys_path_edits(tree, FILE) == ()
