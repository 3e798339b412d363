"""program/reexports.py: what a name imported from a project module really names."""

from __future__ import annotations

from pathlib import Path

from dp2ddp.program.discovery import discover_program
from dp2ddp.program.reexports import ProgramReexports, module_bindings


def _told(root: Path, files: dict[str, str], entry: str = "main.py") -> dict[str, str]:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    program = discover_program(str(root / entry))
    reexports = ProgramReexports(program, module_bindings)
    return dict(reexports.told(program.entry).names)


def test_a_chain_of_reexports_leads_to_torch(tmp_path: Path) -> None:
    told = _told(
        tmp_path,
        {
            "pkg/__init__.py": "from .data import DataLoader as Loader\n",
            "pkg/data.py": "from torch.utils.data import DataLoader\n",
            "pkg/models.py": "import torch.nn as nn\nfrom torch.nn import DataParallel as DP\n",
            "main.py": "from pkg import Loader\nfrom pkg.models import DP, nn\nimport pkg.data\n",
        },
    )
    assert told["pkg.Loader"] == "torch.utils.data.DataLoader"
    assert told["pkg.models.DP"] == "torch.nn.DataParallel"
    assert told["pkg.models.nn"] == "torch.nn"
    assert told["pkg.data.DataLoader"] == "torch.utils.data.DataLoader"


def test_relative_imports_are_keyed_as_libcst_spells_them(tmp_path: Path) -> None:
    told = _told(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/data_utils.py": "from torch.utils.data import DataLoader\n",
            "pkg/main.py": "from . import data_utils\nfrom .data_utils import DataLoader\n",
        },
        entry="pkg/main.py",
    )
    assert told[".data_utils.DataLoader"] == "torch.utils.data.DataLoader"


def test_a_name_the_module_binds_again_is_its_own(tmp_path: Path) -> None:
    told = _told(
        tmp_path,
        {
            "data_utils.py": (
                "from torch.utils.data import DataLoader, Dataset\n"
                "from torch.nn import DataParallel\n\n\n"
                "class DataLoader(DataLoader):\n    pass\n\n\n"
                "DataParallel = None\n"
            ),
            "main.py": "from data_utils import DataLoader, DataParallel, Dataset\n",
        },
    )
    assert told == {"data_utils.Dataset": "torch.utils.data.Dataset"}


def test_names_inside_the_program_and_cycles_are_not_followed(tmp_path: Path) -> None:
    told = _told(
        tmp_path,
        {
            "a.py": "from b import thing\nfrom models import Net\n",
            "b.py": "from a import thing\n",
            "models.py": "class Net:\n    pass\n",
            "main.py": "from a import thing, Net\nimport b\n",
        },
    )
    assert told == {}
