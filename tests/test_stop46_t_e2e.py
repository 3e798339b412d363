"""Stop 46's false texts (helper t), end to end: the committed migrations whose running
program changed, in ONE torchrun launch of two CPU (gloo) processes through
tests/e2e_driver.py.

dp041_family_one_built (stop 45 v1-C, nupurkmr9/S2M2_fewshot@50b1c1b): a factory builds one
class of a model family; another class of the program, which it never builds, uses a layer
under a flag. Before: DP041 quoted that class and the wrap got find_unused_parameters=True.
Now no DP041: the wrap is plain DDP, and both ranks train to the end (an unused parameter
would stop DDP at the second step: "Expected to have finished reduction").

dp041_layer_called_from_other_module (stop 45 v3-C, xcmyz/Tacotron2-Pytorch@a2d8b47): a
layer its own class's forward() never calls, called by another class's method through the
holder (`self.attention_layer.memory_layer(memory)`). Before: DP041 "never uses", and torch
warned on every rank that no parameter was unused. Now plain DDP, both ranks to the end.

hazards_builder_returns_wrap (a fixture of tests/fixtures): builders returning the DDP wrap
(`return DistributedDataParallel(...)`, or through a name); before, DP069 said the model was
not wrapped. Both ranks train to the end with the returned wraps.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from test_examples import Launch, _assert_exited_cleanly, _launch

HERE = Path(__file__).parent
PROGRAMS = HERE / "program_fixtures"
CASES = {
    "dp041_family_one_built": (PROGRAMS / "dp041_family_one_built" / "expected", "train.py"),
    "dp041_layer_called_from_other_module": (
        PROGRAMS / "dp041_layer_called_from_other_module" / "expected",
        "train.py",
    ),
    "hazards_builder_returns_wrap": (HERE / "fixtures" / "hazards_builder_returns_wrap", None),
}


@pytest.fixture(scope="module")
def launched(tmp_path_factory: pytest.TempPathFactory) -> tuple[Launch, list[Path]]:
    root = tmp_path_factory.mktemp("stop46_t")
    scripts = []
    for name, (source, entry) in CASES.items():
        tree = root / name
        if entry is None:  # a single-file fixture: its expected.py
            tree.mkdir()
            shutil.copy(source / "expected.py", tree / "train.py")
        else:
            shutil.copytree(source, tree, ignore=shutil.ignore_patterns("__pycache__"))
        scripts.append(tree / (entry or "train.py"))
    prefix = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"]
    return _launch(prefix, root / "out", scripts), scripts


@pytest.mark.e2e
def test_every_migration_trains_to_the_end_on_both_ranks(
    launched: tuple[Launch, list[Path]],
) -> None:
    launch, scripts = launched
    _assert_exited_cleanly(launch, scripts)
    for script in scripts[:2]:  # the plain DDP wraps: no unused-parameter warning either
        for rank in range(2):
            assert "find_unused_parameters=True" not in launch.stderr(script, rank)
