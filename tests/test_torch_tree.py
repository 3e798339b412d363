"""Never crash, never lose data: `migrate` over a sample of PyTorch's own installed sources.

The full tree (about 2,300 files) runs in benchmarks/bench_migrate.py; this is a sample
that keeps to a few seconds: torch.nn.parallel (DataParallel's own home, DDP-heavy), the
smallest real file that dp2ddp migrates (torch/nn/utils/stateless.py, an isinstance check),
and a fixed pseudo-random draw of small files from the whole tree.
"""

from __future__ import annotations

import importlib.util
import random
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from dp2ddp import migrate_source
from dp2ddp.cli import main
from dp2ddp.migrate.precheck import may_use_dataparallel
from dp2ddp.migrate.summary import Report


def _torch_root() -> Path:
    spec = importlib.util.find_spec("torch")  # locate without importing torch (slow)
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("torch is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def _sample(root: Path) -> list[Path]:
    every = sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)
    small = [p for p in every if p.stat().st_size < 6_000]
    chosen = set(random.Random(20240601).sample(small, min(40, len(small))))
    chosen |= set((root / "nn" / "parallel").glob("*.py"))
    chosen.add(root / "nn" / "utils" / "stateless.py")
    return sorted(p for p in chosen if p.is_file())


def test_sample_of_torch_sources(tmp_path: Path) -> None:
    root = _torch_root()
    sample = _sample(root)
    copy = tmp_path / "torch"
    originals: dict[Path, bytes] = {}
    for path in sample:
        target = copy / path.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
        originals[target] = target.read_bytes()

    result = CliRunner().invoke(main, ["migrate", str(copy)], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr  # no crash, no failed file
    assert "Traceback" not in result.output

    changed = [p for p, data in originals.items() if p.read_bytes() != data]
    assert copy / "nn" / "utils" / "stateless.py" in changed
    for path in changed:
        old = originals[path].decode()
        assert may_use_dataparallel(old), f"{path} changed without using DataParallel"
        new = path.read_text()
        compile(new, str(path), "exec")
        assert migrate_source(new, filename=str(path)).code == new, f"{path}: not a fixed point"
    tally = Report(migrated=len(changed), unchanged=len(originals) - len(changed))
    # The summary goes on to name what is left: torch's own DataParallel implementation
    # (nn/parallel/data_parallel.py) is hand-written data parallelism (DP002).
    (summary,) = [line for line in result.stderr.splitlines() if line.startswith(str(tally))]
    assert "DP002" in summary
    assert "DP025" not in result.stderr  # only an isinstance check changed: no setup needed


def test_precheck_skips_only_files_migrate_source_leaves_alone() -> None:
    """Files the pre-check skips, including DDP-heavy ones that mention DataParallel."""
    root = _torch_root()
    mentions = [
        root / "nn" / "parallel" / "replicate.py",  # DistributedDataParallel, docstrings
        root / "nn" / "parallel" / "scatter_gather.py",
        root / "nn" / "parallel" / "comm.py",
    ]
    plain = sorted(p for p in (root / "nn" / "modules").glob("*.py") if p.stat().st_size < 4_000)
    checked = 0
    for path in [p for p in mentions if p.is_file()] + plain[:4]:
        text = path.read_text(encoding="utf-8")
        if may_use_dataparallel(text):
            continue
        result = migrate_source(text, filename=str(path))
        assert result.code == text, f"{path}: pre-check skipped a file migrate_source changes"
        checked += 1
    assert checked >= 4
