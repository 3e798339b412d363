"""Issue 21, a new user's first hour: .gitignore in folder mode and in verify's copy,
notebooks, migrate without torch, --check's reason, and verify's DataParallel emulation
(BatchNorm and dropout per chunk) checked in-process, without a launch."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from click.testing import CliRunner

from dp2ddp.cli import main
from dp2ddp.commands import verify as verify_command
from dp2ddp.gitignore import ignored_under, is_ignored, parse_rules
from dp2ddp.migrate.discovery import discover
from dp2ddp.verify import probes, protocol
from dp2ddp.verify.project import ProjectError, copy_project
from dp2ddp.verify.recorder import Recorder

ROOT = Path(__file__).resolve().parent.parent
DP = "import torch\n\nmodel = torch.nn.DataParallel(torch.nn.Linear(2, 2))\n"
GIT = shutil.which("git")


def _tree(root: Path, with_git: bool) -> None:
    (root / "wandb" / "run-1" / "files" / "code").mkdir(parents=True)
    (root / "wandb" / "run-1" / "files" / "code" / "train.py").write_text(DP)
    (root / "outputs").mkdir()
    (root / "outputs" / "train_copy.py").write_text(DP)
    (root / "src").mkdir()
    (root / "src" / "train.py").write_text(DP)
    (root / "src" / "keep.log").write_text("")
    (root / "src" / "debug.log").write_text("")
    (root / ".gitignore").write_text("wandb/\n/outputs\n*.log\n!keep.log\n")
    if with_git:
        subprocess.run(["git", "init", "-q", str(root)], check=True)


@pytest.mark.parametrize("with_git", [False, pytest.param(True, marks=pytest.mark.skipif(
    GIT is None, reason="no git"))])  # fmt: skip
def test_folder_mode_leaves_gitignored_code_alone(tmp_path: Path, with_git: bool) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    _tree(root, with_git)
    ignored = ignored_under(str(root))
    assert ignored.source == ("git" if with_git else ".gitignore")
    assert str(root / "src" / "debug.log") in ignored
    assert str(root / "src" / "keep.log") not in ignored
    assert str(root / "wandb" / "run-1" / "files" / "code" / "train.py") in ignored
    skipped: list[str] = []
    found = [t.path for t in discover([str(root)], skipped=skipped)]
    assert found == [str(root / "src" / "train.py")]
    assert sorted(skipped) == [str(root / "outputs") + "/", str(root / "wandb") + "/"]

    result = CliRunner().invoke(main, ["migrate", str(root)])
    assert result.exit_code == 0, result.output
    assert "Skipped 2 .gitignore'd paths:" in result.stderr
    assert (root / "wandb" / "run-1" / "files" / "code" / "train.py").read_text() == DP
    assert (root / "outputs" / "train_copy.py").read_text() == DP
    assert (root / "src" / "train.py").read_text() != DP
    # named explicitly, an ignored file is migrated all the same
    explicit = root / "outputs" / "train_copy.py"
    assert CliRunner().invoke(main, ["migrate", str(explicit)]).exit_code == 0
    assert explicit.read_text() != DP


def test_gitignore_rules() -> None:
    base = "/p"
    rules = parse_rules("# c\n\n*.pt\n!best.pt\nbuild/\n/top.txt\ndocs/**/*.md\na?c\n", base)

    def ignored(path: str, folder: bool = False) -> bool:
        return is_ignored(rules, f"{base}/{path}", folder)

    assert ignored("ckpt/last.pt") and not ignored("ckpt/best.pt")
    assert ignored("x/build", folder=True) and not ignored("x/build")
    assert ignored("top.txt") and not ignored("sub/top.txt")
    assert ignored("docs/a/b/c.md") and ignored("docs/c.md") and not ignored("docs/c.txt")
    assert ignored("abc") and not ignored("abbc")


def _notebook(path: Path, code: str) -> None:
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# DataParallel notes\n"]},
        {"cell_type": "code", "metadata": {}, "source": ["import torch\n", code],
         "outputs": [], "execution_count": None},
    ]  # fmt: skip
    path.write_text(json.dumps({"cells": cells, "nbformat": 4, "nbformat_minor": 5}, indent=1))


def test_a_notebook_with_dataparallel_is_never_skipped_in_silence(tmp_path: Path) -> None:
    nb = tmp_path / "explore.ipynb"
    _notebook(nb, "model = torch.nn.DataParallel(net)\n")
    _notebook(tmp_path / "plain.ipynb", "model = net.cuda()\n")
    before = nb.read_bytes()
    runner = CliRunner()
    for args in (["migrate", str(tmp_path)], ["migrate", str(nb)]):
        result = runner.invoke(main, args)
        assert result.exit_code == 0, result.output
        assert "Nothing to do" not in result.stderr
        (line,) = [x for x in result.stderr.splitlines() if " DP038 " in x]
        assert line.startswith(f"{nb}:")
        lineno = int(line.split(":")[1])
        assert "DataParallel(net)" in nb.read_text().splitlines()[lineno - 1]
        assert "(code cell 1, line 2)" in line and "nbconvert --to script" in line
        assert "plain.ipynb" not in result.stderr
    check = runner.invoke(main, ["migrate", "--check", str(tmp_path)])
    assert check.exit_code == 1
    assert "still uses DataParallel" in check.stderr and "DP038" in check.stderr
    assert nb.read_bytes() == before


@pytest.mark.parametrize(
    "case", sorted(p.name for p in (ROOT / "tests" / "notebook_fixtures").iterdir())
)
def test_notebook_fixtures(case: str) -> None:
    """tests/notebook_fixtures/<case>/{input.ipynb,warnings.txt}: the DP038 lines, golden."""
    from dp2ddp.notebooks import notebook_outcome

    folder = ROOT / "tests" / "notebook_fixtures" / case
    outcome = notebook_outcome(str(folder / "input.ipynb"))
    assert outcome is not None and outcome.result is not None
    assert outcome.status == "unchanged" and outcome.result.keeps_dataparallel
    lines = [f"{d.line}:{d.col} {d.code} {d.message}" for d in outcome.result.diagnostics]
    assert lines == (folder / "warnings.txt").read_text().splitlines()


def test_check_says_why_it_fails_when_only_warnings_remain(tmp_path: Path) -> None:
    train = tmp_path / "train.py"
    train.write_text("from nets.builder import *\nnet = DataParallel(build())\n")
    result = CliRunner().invoke(main, ["migrate", "--check", str(train)])
    assert result.exit_code == 1
    summary = next(x for x in result.stderr.splitlines() if x.startswith("1 file unchanged."))
    assert "1 unchanged file still uses DataParallel" in summary and "(DP016, above)" in summary


def test_migrate_never_imports_torch(tmp_path: Path) -> None:
    train = tmp_path / "train.py"
    train.write_text(DP)
    code = (
        "import sys\n"
        "sys.modules['torch'] = None  # an environment without torch\n"
        "from dp2ddp.cli import main\n"
        f"main(['migrate', {str(train)!r}, '--report', {str(tmp_path / 'pr.md')!r}],"
        " standalone_mode=False)\n"
        "main(['launch', {0!r}, '-o', {1!r}], standalone_mode=False)\n".format(
            str(train), str(tmp_path / "launch.sh")
        )
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "DistributedDataParallel" in train.read_text()
    assert (tmp_path / "pr.md").exists() and (tmp_path / "launch.sh").exists()


def test_verify_without_torch_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    train = tmp_path / "train.py"
    train.write_text(DP)
    monkeypatch.setitem(sys.modules, "torch", None)
    result = CliRunner().invoke(main, ["verify", str(train)])
    assert result.exit_code == 2
    assert result.stderr.strip() == f"dp2ddp verify: error: {verify_command.NO_TORCH}"
    assert 'pip install "dp2ddp[verify]"' in result.stderr


def test_torch_is_an_extra() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert not any(d.startswith("torch") for d in project["dependencies"])
    assert project["optional-dependencies"]["verify"] == ["torch>=2.1"]


def test_verify_copy_links_ignored_data_and_names_what_is_large(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "data").mkdir(parents=True)
    (root / "ckpt").mkdir()
    (root / "src").mkdir()
    (root / ".gitignore").write_text("data/\n*.pt\n")
    (root / "data" / "train.bin").write_bytes(b"0" * 4000)
    (root / "ckpt" / "last.pt").write_bytes(b"0" * 3000)
    (root / "ckpt" / "scratch.py").write_text("x = 1\n")
    (root / "big").mkdir()
    (root / "big" / "blob.bin").write_bytes(b"0" * 2000)
    (root / "src" / "train.py").write_text(DP)
    copy = tmp_path / "copy"
    plan = copy_project(root, copy, limit=2500)
    assert (copy / "data" / "train.bin").is_symlink()
    assert (copy / "ckpt" / "last.pt").is_symlink()
    assert not (copy / "src" / "train.py").is_symlink()
    assert (plan.linked, plan.linked_bytes) == (2, 7000)
    with pytest.raises(ProjectError) as error:
        copy_project(root, tmp_path / "copy2", limit=1000)
    message = str(error.value)
    assert "largest: big/ 2 KiB" in message and "--exclude big" in message
    plan = copy_project(root, tmp_path / "copy3", limit=1000, exclude=("big",))
    assert (tmp_path / "copy3" / "big" / "blob.bin").is_symlink()


# -- DataParallel's chunks, in-process ---------------------------------------------------------
@pytest.fixture
def recorder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Recorder:
    for name in ("batch_norm", "dropout", "scaled_dot_product_attention", *probes._DROPOUTS):
        if hasattr(F, name):
            monkeypatch.setattr(F, name, getattr(F, name))  # restored after the test
    options = protocol.RunnerOptions(out=str(tmp_path), steps=1, seed=0, file_attr="x.py")
    return Recorder(options, 0, 1, tmp_path)


def test_batchnorm_per_chunk_keeps_the_first_chunks_running_statistics(
    recorder: Recorder,
) -> None:
    torch.manual_seed(0)
    x = torch.randn(8, 3) * 4 + 1
    reference = torch.nn.BatchNorm1d(3)
    expected = torch.cat([reference(x[:4]), torch.nn.BatchNorm1d(3)(x[4:])])
    probes.install(recorder, False, False, batchnorm_chunks=2)
    bn = torch.nn.BatchNorm1d(3)
    out = bn(x)
    torch.testing.assert_close(out, expected)
    torch.testing.assert_close(bn.running_mean, reference.running_mean)
    torch.testing.assert_close(bn.running_var, reference.running_var)
    assert recorder.current.batchnorm_chunked == 1


def test_dropout_per_chunk_draws_what_each_rank_draws(recorder: Recorder, tmp_path: Path) -> None:
    """Chunk r of the original draws the mask rank r draws for its own chunk, whatever the
    global RNG holds (verify seeds every rank differently, as torchrun does); the global
    RNG is left where it was, in both runs."""
    native = F.dropout
    probes.install(recorder, False, False, dropout_chunks=2)
    recorder.forward_batch = 8
    x = torch.ones(8, 64)
    torch.manual_seed(5)
    before = torch.get_rng_state()
    out = F.dropout(x, 0.5, True)
    assert torch.equal(before, torch.get_rng_state())
    assert not torch.equal(out[:4], out[4:])  # each rank its own mask
    for rank in (0, 1):
        other = Recorder(recorder.options, rank, 2, tmp_path / f"rank{rank}")
        other.forward_batch = 4
        as_rank = probes._dropout_probe(other, native, False, 1, False)
        torch.manual_seed(1000 + rank)  # another global state: the mask does not depend on it
        torch.testing.assert_close(
            as_rank(torch.ones(4, 64), 0.5, True), out[4 * rank : 4 * rank + 4]
        )
        # what each drew, kept for causes (mask seed, shape, p): the rank's as the original's
        assert other.current.dropout_draws == {str(rank): recorder.current.dropout_draws[str(rank)]}
    assert recorder.current.dropout_aligned == 1
    torch.testing.assert_close(F.dropout(x.t(), 0.5, True), x.t())  # batch last: off
    assert recorder.current.dropout_off == 1
