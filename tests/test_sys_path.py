"""Folders a module puts on sys.path (dp2ddp/program/sys_path.py): the spellings research
repositories use, and those that stay unknown (never guessed)."""

from __future__ import annotations

import ast
import os
import tempfile
from pathlib import Path

import pytest

from dp2ddp.program.discovery import discover_program
from dp2ddp.program.sys_path import PathEdit, path_facts, resolve_edits, sys_path_edits

FILE = "/repo/tools/_init_paths.py"


def edits(source: str) -> list[tuple[bool, str]]:
    return [(e.in_front, e.folder) for e in sys_path_edits(ast.parse(source), FILE)]


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
        (  # round 39, xiaoyufenfei/LEDNet@5d900d9: the root as os.path.split(...)[0]
            "import os, sys\ncur = os.path.abspath(os.path.dirname(__file__))\n"
            "root = os.path.split(cur)[0]\nsys.path.append(root)\n",
            [(False, "/repo")],
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
        (
            PathEdit(True, "lib"),
            PathEdit(False, str(tmp_path / "tools" / ".." / "lib")),
            PathEdit(False, "missing"),
        ),
        str(tmp_path),
    )
    assert front == [str(tmp_path / "lib")]
    assert back == [os.path.normpath(tmp_path / "lib")]


def test_an_edit_is_anchored_unless_it_is_an_absolute_literal() -> None:
    source = (
        "import os, sys\nhere = os.path.dirname(__file__)\nfixed = '/opt/shared'\n"
        "sys.path.insert(0, os.path.join(here, '..'))\nsys.path.append('lib')\n"
        "sys.path.append(fixed)\nsys.path.extend([os.path.join(here, 'a'), '/srv/b'])\n"
    )
    found = [(e.folder, e.anchored, e.line) for e in sys_path_edits(ast.parse(source), FILE)]
    assert found == [
        ("/repo/tools/..", True, 4),
        ("lib", True, 5),
        ("/opt/shared", False, 6),
        ("/repo/tools/a", True, 7),
        ("/srv/b", False, 7),
    ]


def test_changes_not_followed_are_listed_with_their_line() -> None:
    source = (
        "import os, sys, site\n"
        "def add_path(p):\n    sys.path.insert(0, p)\n"
        "add_path(os.path.dirname(__file__))\n"  # followed
        "sys.path.append(args.lib)\n"  # known at run time only
        "def main():\n    add_path(cfg.root)\n    sys.path.append('x')\n"
        "sys.path = ['a'] + sys.path\n"
        "site.addsitedir(os.environ['SITE'])\n"
    )
    edits, unfollowed = path_facts(ast.parse(source), FILE)
    assert [e.folder for e in edits] == ["/repo/tools"]
    assert [(u.line, u.code) for u in unfollowed] == [
        (5, "sys.path.append(args.lib)"),
        (7, "add_path(cfg.root)"),
        (8, "sys.path.append('x')"),
        (9, "sys.path = ['a'] + sys.path"),
        (10, "site.addsitedir(os.environ['SITE'])"),
    ]


def _project(tmp_path: Path, init_paths: str) -> Path:
    """scripts/train.py importing `_init_paths` (given) then `pkg.io`; no root marker."""
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "_init_paths.py").write_text(init_paths)
    (tmp_path / "scripts" / "train.py").write_text("import _init_paths\nfrom pkg.io import log\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "io.py").write_text("def log(p):\n    open(p, 'a').write('x')\n")
    return tmp_path / "scripts" / "train.py"


def test_the_root_widens_to_the_folder_an_anchored_edit_reaches(tmp_path: Path) -> None:
    entry = _project(
        tmp_path,
        "import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))\n",
    )
    program = discover_program(str(entry))
    assert program.root == str(tmp_path / "scripts")  # the root as found: no marker
    assert program.files_root == str(tmp_path)
    assert [os.path.relpath(m.real, tmp_path) for m in program.modules] == [
        "scripts/train.py",
        "scripts/_init_paths.py",
        "pkg/__init__.py",
        "pkg/io.py",
    ]
    assert program.incomplete == ()


def test_an_import_outside_the_root_is_said(tmp_path: Path) -> None:
    """An absolute folder of one machine: not a widening; the import reaching it is DP076."""
    entry = _project(tmp_path, f"import sys\nsys.path.insert(0, {str(tmp_path)!r})\n")
    program = discover_program(str(entry))
    assert program.files_root == str(tmp_path / "scripts")
    assert [m.name for m in program.modules] == ["train", "_init_paths"]
    (gap,) = program.incomplete
    assert (gap.module, gap.line, gap.col) == (1, 2, 1)
    assert "`import pkg` in " in gap.detail and "outside the program's root" in gap.detail


def test_the_root_never_widens_to_the_home_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    entry = _project(tmp_path, "import sys\nfrom pathlib import Path\n"
                     "sys.path.append(str(Path(__file__).parent.parent))\n")  # fmt: skip
    program = discover_program(str(entry))
    assert program.files_root == str(tmp_path / "scripts")
    (gap,) = program.incomplete
    assert gap.line == 3 and "outside the program's root" in gap.detail


def test_an_unfollowed_change_with_a_module_nearby_is_said(tmp_path: Path) -> None:
    entry = _project(tmp_path, "import os, sys\nsys.path.insert(0, os.environ['ROOT'])\n")
    program = discover_program(str(entry))
    (gap,) = program.incomplete
    assert (gap.module, gap.line) == (1, 2)
    assert "`import pkg` (" in gap.detail and f"{tmp_path / 'pkg'} exists" in gap.detail


def test_an_unfollowed_change_without_a_module_nearby_is_not_said(tmp_path: Path) -> None:
    base = tmp_path / "deep" / "er"  # the folders above it hold nothing else
    base.mkdir(parents=True)
    entry = _project(base, "import os, sys\nsys.path.insert(0, os.environ['ROOT'])\n")
    (base / "pkg" / "io.py").unlink()
    (base / "pkg" / "__init__.py").unlink()
    (base / "pkg").rmdir()
    assert discover_program(str(entry)).incomplete == ()


def test_sys_path_zero_is_the_script_folder_of_an_entry_script() -> None:
    """`sys.path[0]` (audioset_tagging_cnn's `os.path.join(sys.path[0], '../utils')`) is the
    entry script's folder; in a module that is not run as a script it stays unknown."""
    source = "import os, sys\nsys.path.insert(1, os.path.join(sys.path[0], '../utils'))\n"
    tree = ast.parse(source)
    found = [(e.in_front, e.folder, e.anchored) for e in sys_path_edits(tree, FILE, script=True)]
    assert found == [(False, "/repo/tools/../utils", True)]
    assert sys_path_edits(tree, FILE) == ()


def test_an_unfollowed_change_names_only_code_that_may_be_hidden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v1-E of stop 42 (GengDavid/pytorch-cpn in verify's copy, LiheYoung/ST-PlusPlus): DP076
    named `import torch` (a library that imports here) "while /tmp/b_torch/torch exists",
    another program's `utils/` in the temporary folder, and the program's own namespace
    package `model/`. None of them is code the program may reach unmigrated; a project
    module beside the copy is, and stays said."""
    work = tmp_path / "work"  # the system's folder for temporary files, here
    monkeypatch.setattr(tempfile, "tempdir", str(work))
    entry = work / "tmp.copy" / "entry"
    (entry / "model").mkdir(parents=True)
    (entry / "model" / "net.py").write_text("X = 1\n")
    for package in ("tmp.copy/torch", "tmp.copy/netlib", "tmp.other/utils"):
        (work / package).mkdir(parents=True)
        (work / package / "__init__.py").write_text("")
    (entry / "train.py").write_text(
        "import os, sys\nsys.path.insert(0, os.environ['ROOT'])\n"
        "import torch\nimport utils\nfrom model import net\n"
    )
    assert discover_program(str(entry / "train.py")).incomplete == ()
    (entry / "train.py").write_text(
        "import os, sys\nsys.path.insert(0, os.environ['ROOT'])\n"
        "import torch\nimport utils\nfrom model import net\nimport netlib\n"
    )
    (gap,) = discover_program(str(entry / "train.py")).incomplete
    assert (
        "`import netlib`" in gap.detail and f"{work / 'tmp.copy' / 'netlib'} exists" in gap.detail
    )
    assert "`import torch`" not in gap.detail and "`import utils`" not in gap.detail, gap


def test_the_programs_namespace_package_of_sub_packages_is_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v2-C of stop 63 (UTU-Health-Research/dl-ecg-classifier@822fcd8 beside other
    checkouts): the program imports `src.modeling.train_utils` from its own `src/`, which
    holds sub-packages only (no `.py` in it, no __init__.py); the search for a module `src`
    passed it by and found another checkout's `src/` two folders up: DP076 said "no file of
    the program answers `import src`". A name the program's own folder answers is not said."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "elsewhere"))
    project = tmp_path / "work" / "ecg"
    (project / "src" / "modeling").mkdir(parents=True)
    (project / "src" / "modeling" / "__init__.py").write_text("")
    (project / "src" / "modeling" / "train_utils.py").write_text("X = 1\n")
    (tmp_path / "work" / "other" / "src").mkdir(parents=True)
    (tmp_path / "work" / "other" / "src" / "run.py").write_text("Y = 2\n")
    (project / "train.py").write_text("from src.modeling.train_utils import X\n")
    assert discover_program(str(project / "train.py")).incomplete == ()
    (project / "train.py").write_text("from src.modeling.train_utils import X\nimport other\n")
    (tmp_path / "work" / "other" / "__init__.py").write_text("")
    (gap,) = discover_program(str(project / "train.py")).incomplete
    assert "`import other`" in gap.detail
