"""The helpers apart (transforms/_support/runtime.py): a migrated script imports its setup
and helpers from a generated `_dp2ddp.py` beside it, holding only what the program uses;
`--inline-helpers` keeps the single-file form. The examples' e2e runs (test_examples.py)
run such scripts under torchrun; these tests pin the file layer's rules."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner, Result

from dp2ddp import MigrateOptions, migrate_source
from dp2ddp.cli import main
from dp2ddp.transforms._support.runtime import (
    MARKER,
    helper_closure,
    render_module,
)

WRAP = (
    "import torch\n"
    "import torch.nn as nn\n"
    "\n"
    "model = nn.DataParallel(nn.Linear(4, 2))\n"
    "print(model)\n"
)
#: A second entry beside the first, using a helper the first does not (a sharded loader).
LOADER = (
    "import torch\n"
    "import torch.nn as nn\n"
    "from torch.utils.data import DataLoader, TensorDataset\n"
    "\n"
    "data = TensorDataset(torch.arange(8.0).unsqueeze(1))\n"
    "loader = DataLoader(data, batch_size=4, shuffle=True)\n"
    "model = nn.DataParallel(nn.Linear(1, 1))\n"
    "for epoch in range(1):\n"
    "    for (x,) in loader:\n"
    "        model(x).sum().backward()\n"
)


def run(*args: str, input: bytes | None = None) -> Result:
    return CliRunner().invoke(main, ["migrate", *args], input=input, catch_exceptions=False)


def _defined(text: str) -> set[str]:
    return {
        line.split()[1].split("(")[0].rstrip(":")
        for line in text.splitlines()
        if line.startswith(("def ", "class "))
    }


def test_the_result_carries_only_the_helpers_the_script_uses() -> None:
    result = migrate_source(WRAP, filename="train.py")
    assert "from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup" in result.code
    assert "def ddp_setup" not in result.code
    assert result.helpers == ("print",)
    module = result.helpers_module
    assert module.startswith(MARKER)
    assert _defined(module) == {"ddp_setup", "ddp_cleanup", "ddp_is_main", "ddp_print"}
    compile(module, "_dp2ddp.py", "exec")
    loader = migrate_source(LOADER, filename="train.py")
    assert "per_rank_batch" in loader.helpers
    assert "def ddp_per_rank_batch" in loader.helpers_module
    assert "def ddp_all_reduce_sum" not in loader.helpers_module


def test_inline_form_keeps_one_self_contained_file() -> None:
    result = migrate_source(WRAP, MigrateOptions(inline_helpers=True), filename="train.py")
    assert "def ddp_setup():" in result.code and "_dp2ddp" not in result.code
    assert result.helpers_module == "" and result.helpers == ()


def test_a_helper_brings_the_helpers_it_calls() -> None:
    # DdpSamplerShard subclasses DdpBatchShard, which draws through ddp_same_random.
    closure = helper_closure(["sampler_shard"])
    assert {"sampler_shard", "batch_shard", "same_random", "rank0_value"} <= set(closure)
    assert "per_rank_batch" not in closure
    module = render_module(closure)
    compile(module, "_dp2ddp.py", "exec")


def test_migrated_script_runs_as_a_world_of_one(tmp_path: Path) -> None:
    """Plain `python train.py`: nothing from dp2ddp is needed, the module is beside it."""
    (tmp_path / "train.py").write_text(WRAP)
    assert run(str(tmp_path / "train.py")).exit_code == 0
    done = subprocess.run(
        [sys.executable, "train.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "DistributedDataParallel" in done.stdout


def test_entries_migrated_one_after_the_other_share_the_module(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(WRAP)
    (tmp_path / "b.py").write_text(LOADER)
    assert run(str(tmp_path / "b.py")).exit_code == 0
    assert run(str(tmp_path / "a.py")).exit_code == 0  # uses less: keeps b's helpers
    module = (tmp_path / "_dp2ddp.py").read_text()
    assert "def ddp_per_rank_batch" in module
    together = tmp_path / "together"
    together.mkdir()
    (together / "a.py").write_text(WRAP)
    (together / "b.py").write_text(LOADER)
    assert run(str(together)).exit_code == 0  # folder mode: one module for both
    assert (together / "_dp2ddp.py").read_text() == module
    again = run("--check", str(tmp_path / "a.py"), str(tmp_path / "b.py"))
    assert again.exit_code == 0, again.stderr  # a fixed point
    assert (tmp_path / "_dp2ddp.py").read_text() == module


def test_an_edited_module_is_refused_not_overwritten(tmp_path: Path) -> None:
    train = tmp_path / "train.py"
    train.write_text(WRAP)
    assert run(str(train)).exit_code == 0
    helpers = tmp_path / "_dp2ddp.py"
    edited = helpers.read_text().replace("return RANK == 0", "return RANK in (0, 1)")
    helpers.write_text(edited)
    (tmp_path / "b.py").write_text(LOADER)  # would need a helper more: a rewrite
    result = run(str(tmp_path / "b.py"))
    assert result.exit_code == 2
    assert f"{helpers}:1:1: error: _dp2ddp.py was edited after dp2ddp wrote it" in result.stderr
    assert helpers.read_text() == edited
    assert (tmp_path / "b.py").read_text() == LOADER  # all or nothing


def test_output_file_writes_the_module_beside_it(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(WRAP)
    out = tmp_path / "out"
    out.mkdir()
    result = run(str(tmp_path / "train.py"), "-o", str(out / "train_ddp.py"))
    assert result.exit_code == 0, result.stderr
    assert (out / "_dp2ddp.py").read_text().startswith(MARKER)
    assert not (tmp_path / "_dp2ddp.py").exists()  # nothing beside the input


def test_inline_option_and_setting(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(WRAP)
    assert run("--inline-helpers", str(tmp_path / "train.py")).exit_code == 0
    assert "def ddp_setup():" in (tmp_path / "train.py").read_text()
    assert not (tmp_path / "_dp2ddp.py").exists()
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[tool.dp2ddp]\ninline-helpers = true\n")
    (project / "train.py").write_text(WRAP)
    assert run(str(project / "train.py")).exit_code == 0
    assert "def ddp_setup():" in (project / "train.py").read_text()
    assert not (project / "_dp2ddp.py").exists()


def test_a_module_with_crlf_line_ends_is_not_an_edit(tmp_path: Path) -> None:
    """git's autocrlf checks the module out with CRLF: neither edited nor rewritten."""
    train = tmp_path / "train.py"
    train.write_text(WRAP)
    assert run(str(train)).exit_code == 0
    helpers = tmp_path / "_dp2ddp.py"
    crlf = helpers.read_bytes().replace(b"\n", b"\r\n")
    helpers.write_bytes(crlf)
    again = run("--check", str(train))
    assert again.exit_code == 0, again.stderr
    assert helpers.read_bytes() == crlf


def test_a_module_of_an_older_dp2ddp_is_rewritten_with_what_the_program_uses(
    tmp_path: Path,
) -> None:
    """No checksum line: written by a dp2ddp that put every helper in it."""
    (tmp_path / "train.py").write_text(WRAP)
    old = render_module().replace("\n# dp2ddp checksum: ", "\n# was: ", 1)
    (tmp_path / "_dp2ddp.py").write_text(old)
    assert run(str(tmp_path / "train.py")).exit_code == 0
    module = (tmp_path / "_dp2ddp.py").read_text()
    assert module == migrate_source(WRAP, filename="train.py").helpers_module


def test_a_deleted_module_is_regenerated_from_what_the_scripts_import(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(WRAP)
    (tmp_path / "b.py").write_text(LOADER)
    assert run(str(tmp_path)).exit_code == 0
    helpers = tmp_path / "_dp2ddp.py"
    first = helpers.read_text()
    helpers.unlink()
    result = run(str(tmp_path))  # both scripts are migrated already: their imports say it
    assert result.exit_code == 0, result.stderr
    assert f"created {helpers}" in result.stderr
    assert helpers.read_text() == first


def test_sync_batchnorm_keeps_a_subclass_with_its_own_forward(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # The conversion as on CUDA (building SyncBatchNorm needs no GPU): torch's own layers
    # become SyncBatchNorm, a subclass with a forward of its own stays as written (DP008).
    import torch
    import torch.nn.functional as F

    namespace: dict[str, object] = {}
    exec(
        compile(render_module(helper_closure(["sync_batchnorm"])), "_dp2ddp.py", "exec"), namespace
    )
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)

    class BatchStats(torch.nn.modules.batchnorm._BatchNorm):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return F.batch_norm(x, None, None, self.weight, self.bias, True, 0.1, self.eps)

    net = torch.nn.Sequential(torch.nn.Linear(2, 3), BatchStats(3), torch.nn.BatchNorm1d(3))
    converted = namespace["ddp_sync_batchnorm"](net)  # type: ignore[operator]
    assert [type(m).__name__ for m in converted] == ["Linear", "BatchStats", "SyncBatchNorm"]
    plain = namespace["ddp_sync_batchnorm"](torch.nn.BatchNorm2d(3))  # type: ignore[operator]
    assert type(plain).__name__ == "SyncBatchNorm"
