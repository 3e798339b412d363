"""CI and review conventions (docs/ci.md): [tool.dp2ddp] settings, `# noqa` comments and
`--ignore`, and `migrate --output-format json|github`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from dp2ddp.cli import main
from dp2ddp.commands.output_formats import escape_data, escape_property
from dp2ddp.commands.shared_options import OptionFlags, resolve
from dp2ddp.migrate.suppress import ALL, parse_noqa
from dp2ddp.settings import SettingsError, find_settings, load_settings

TWO_BATCHNORMS = (
    "import torch.nn as nn\n"
    "\n"
    "model = nn.Sequential(\n"
    "    nn.Linear(4, 8),\n"
    "    nn.BatchNorm1d(8),{first}\n"
    "    nn.ReLU(),\n"
    "    nn.BatchNorm1d(8),{second}\n"
    ")\n"
    "model = nn.DataParallel(model)\n"
)
#: A subclass with machinery of its own (DP002); one that only forwards is migrated.
SUBCLASS = (
    "import torch.nn as nn\n\n\nclass MyDataParallel(nn.DataParallel):{noqa}\n"
    "    def gather(self, outputs, output_device):\n        return outputs\n"
)
BROKEN = "model = nn.DataParallel(\n"


def migrate(*args: str, input: bytes | None = None) -> Result:
    return CliRunner().invoke(main, ["migrate", *args], input=input, catch_exceptions=False)


def warnings_of(result: Result, code: str | None = None) -> list[str]:
    lines = [line for line in result.stderr.splitlines() if " DP0" in line]
    return [line for line in lines if code is None or f" {code} " in line]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# -- noqa and --ignore -------------------------------------------------------------------------
def test_noqa_on_one_of_two_batchnorm_lines_leaves_the_other(tmp_path: Path) -> None:
    plain = write(tmp_path / "plain.py", TWO_BATCHNORMS.format(first="", second=""))
    result = migrate("--check", str(plain))
    assert warnings_of(result, "DP008") == [
        f"{plain}:5:5: DP008 BatchNorm statistics are per process: nn.BatchNorm1d and 1 more"
    ]
    one = write(tmp_path / "one.py", TWO_BATCHNORMS.format(first="  # noqa: DP008", second=""))
    assert warnings_of(migrate("--check", str(one)), "DP008") == [
        f"{one}:7:5: DP008 BatchNorm statistics are per process: nn.BatchNorm1d"
    ]
    other = write(tmp_path / "other.py", TWO_BATCHNORMS.format(first="", second="  # noqa:DP008"))
    assert warnings_of(migrate("--check", str(other)), "DP008") == [
        f"{other}:5:5: DP008 BatchNorm statistics are per process: nn.BatchNorm1d"
    ]
    both = write(
        tmp_path / "both.py",
        TWO_BATCHNORMS.format(first="  # noqa: E501, DP008", second="  # noqa"),
    )
    result = migrate("--check", str(both))
    assert result.exit_code == 1  # still to migrate: noqa silences warnings, not the work
    assert warnings_of(result, "DP008") == []


def test_noqa_for_other_codes_or_other_lines_silences_nothing(tmp_path: Path) -> None:
    text = TWO_BATCHNORMS.format(first="  # noqa: E501", second="").replace(
        "model = nn.DataParallel(model)", "model = nn.DataParallel(model)  # noqa: DP008"
    )
    train = write(tmp_path / "train.py", text)
    assert [w.split()[1] for w in warnings_of(migrate("--check", str(train)))] == ["DP008"]


def test_silenced_dp002_no_longer_fails_check(tmp_path: Path) -> None:
    loud = write(tmp_path / "loud.py", SUBCLASS.format(noqa=""))
    result = migrate("--check", str(loud))
    assert result.exit_code == 1 and len(warnings_of(result, "DP002")) == 1
    quiet = write(tmp_path / "quiet.py", SUBCLASS.format(noqa="  # noqa: DP002"))
    result = migrate("--check", str(quiet))
    assert result.exit_code == 0, result.stderr
    assert warnings_of(result) == []
    assert migrate("--check", "--ignore", "DP002", str(loud)).exit_code == 0


def test_ignore_option_takes_codes_and_refuses_unknown_ones(tmp_path: Path) -> None:
    train = write(tmp_path / "train.py", TWO_BATCHNORMS.format(first="", second=""))
    assert warnings_of(migrate("--check", "--ignore", "DP003,dp008", str(train))) == []
    result = migrate("--check", "--ignore", "DP008,DP999", str(train))
    assert result.exit_code == 2 and "unknown warning code DP999" in result.stderr


def test_parse_noqa_forms() -> None:
    assert parse_noqa("x = 1") is None
    assert parse_noqa("x = 1  # noqa") is ALL
    assert parse_noqa("x = 1  # NOQA:") is ALL
    assert parse_noqa("x = 1  # noqa: DP008,DP012 reviewed") == frozenset({"DP008", "DP012"})
    assert parse_noqa("x = 1  # noqa:dp008 E501") == frozenset({"DP008", "E501"})
    assert parse_noqa("x = 1  # type: ignore  # noqa: DP004") == frozenset({"DP004"})


# -- [tool.dp2ddp] ---------------------------------------------------------------------------
def test_pyproject_ignore_silences_a_code_for_the_project(tmp_path: Path) -> None:
    train = write(tmp_path / "src/train.py", TWO_BATCHNORMS.format(first="", second=""))
    assert warnings_of(migrate("--check", str(train)), "DP008")
    write(
        tmp_path / "pyproject.toml", '[project]\nname = "x"\n\n[tool.dp2ddp]\nignore = ["DP008"]\n'
    )
    result = migrate("--check", str(tmp_path / "src"))
    assert result.exit_code == 1 and warnings_of(result, "DP008") == []


def test_pyproject_options_and_the_command_line_overrides_them(tmp_path: Path) -> None:
    text = TWO_BATCHNORMS.format(first="", second="")
    write(tmp_path / "pyproject.toml", "[tool.dp2ddp]\nsync-batchnorm = true\nexclude = ['old']\n")
    train = write(tmp_path / "train.py", text)
    old = write(tmp_path / "old/train.py", text)
    result = migrate(str(tmp_path))
    assert result.exit_code == 0, result.stderr
    assert "ddp_sync_batchnorm(" in train.read_text()
    assert old.read_text() == text  # excluded by the settings
    train.write_text(text)
    assert migrate("--no-sync-batchnorm", str(train)).exit_code == 0
    assert "sync_batchnorm" not in train.read_text()
    train.write_text(text)
    assert migrate("--isolated", str(train)).exit_code == 0
    assert "sync_batchnorm" not in train.read_text()


@pytest.mark.parametrize(
    ("table", "line", "message"),
    [
        ("[tool.dp2ddp]\nsync-batchnorm = true\nsync_batch_norm = true\n", 3, "unknown setting"),
        ("[tool.dp2ddp]\nignore = [\n  'DP008',\n  'DP999',\n]\n", 4, "'DP999'"),
        ("[tool.dp2ddp]\n\njobs = 'four'\n", 3, "'jobs' must be a whole number"),
        ("[tool.dp2ddp]\nexclude = 'build'\n", 2, "'exclude' must be a list of strings"),
        ("[tool.dp2ddp]\nignore = [DP008]\n", 2, "invalid TOML"),
    ],
)
def test_a_bad_settings_file_is_one_error_line_with_its_line(
    tmp_path: Path, table: str, line: int, message: str
) -> None:
    pyproject = write(tmp_path / "pyproject.toml", "[project]\nname = 'x'\n\n" + table)
    train = write(tmp_path / "train.py", TWO_BATCHNORMS.format(first="", second=""))
    before = train.read_text()
    result = migrate(str(train))
    assert result.exit_code == 2
    (error,) = result.stderr.splitlines()
    assert error.startswith(f"{pyproject}:{line + 3}:"), error  # tmp_path: outside the cwd
    assert ": error: " in error and message in error
    assert train.read_text() == before  # untouched
    verify = CliRunner().invoke(main, ["verify", str(train)])
    assert verify.exit_code == 2 and verify.stderr.strip() == error


def test_settings_are_found_like_ruff_finds_its_own(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.dp2ddp]\nignore = ['DP008']\n")
    write(tmp_path / "pkg/pyproject.toml", "[project]\nname = 'dp2ddp-user'\n")  # no table
    write(tmp_path / "pkg/sub/train.py", "")
    found = find_settings([str(tmp_path / "pkg/sub/train.py")], cwd="/")
    assert found is not None and Path("/", found) == tmp_path / "pyproject.toml"  # relative
    outside = find_settings(["-"], cwd=str(tmp_path / "pkg"))  # above the cwd: absolute
    assert outside == str(tmp_path / "pyproject.toml")
    assert load_settings(str(outside)).ignore == {"DP008"}
    other = write(tmp_path / "ci.toml", "sync-batchnorm = true\n")  # --config: top-level keys
    resolved = resolve(OptionFlags(config=str(other)), [str(tmp_path)])
    assert resolved.options.sync_batchnorm and not resolved.options.ignore
    with pytest.raises(SettingsError):
        load_settings(str(write(tmp_path / "bad.toml", "nproc = 2\n")))


def test_verify_and_migrate_share_the_option_flags() -> None:
    def options(command: str) -> dict[str, Any]:
        result = CliRunner().invoke(main, [command, "--help"], terminal_width=200)
        return {
            line.split()[0]: line.strip()
            for line in result.stdout.splitlines()
            if line.strip().startswith(("--per-process", "--sync", "--keep-summed", "--ignore"))
        }

    shared = options("verify")
    assert len(shared) == 4 and shared == options("migrate")


# -- --output-format ---------------------------------------------------------------------------
def test_json_document(tmp_path: Path) -> None:
    train = write(tmp_path / "train.py", TWO_BATCHNORMS.format(first="", second=""))
    plain = write(tmp_path / "plain.py", "x = 1\n")
    broken = write(tmp_path / "broken.py", BROKEN)
    result = migrate("--check", "--output-format", "json", str(train), str(plain), str(broken))
    assert result.exit_code == 2
    document = json.loads(result.stdout)
    assert list(document) == [
        "version",
        "dp2ddp",
        "settings",
        "check",
        "files",
        "summary",
        "launch",
    ]
    assert document["version"] == 1 and document["check"] is True
    files = {Path(f["path"]).name: f for f in document["files"]}
    assert [f["status"] for f in document["files"]] == [
        "would migrate",
        "would migrate",  # the generated _dp2ddp.py train.py would import
        "unchanged",
        "error",
    ]
    keys = [
        "path",
        "status",
        "created",
        "written_to",
        "left_with_dataparallel",
        "error",
        "changes",
        "warnings",
    ]
    assert all(list(f) == keys for f in files.values())
    assert files["_dp2ddp.py"]["warnings"] == []
    (warning,) = files["train.py"]["warnings"]
    assert warning == {
        "path": str(train),
        "line": 5,
        "col": 5,
        "code": "DP008",
        "message": "BatchNorm statistics are per process: nn.BatchNorm1d and 1 more",
    }
    assert files["train.py"]["changes"] and all(
        list(c) == ["path", "line", "transform", "message"] for c in files["train.py"]["changes"]
    )
    error = files["broken.py"]["error"]
    assert (
        error["path"] == str(broken) and error["line"] == 1 and "never closed" in error["message"]
    )
    assert document["summary"] == {
        "files": 4,
        "migrated": 1,  # train.py
        "created": 1,  # its _dp2ddp.py
        "unchanged": 1,
        "errors": 1,
        "left_with_dataparallel": 0,
        "warnings": 1,
        "exit_code": 2,
        "text": "1 file would be migrated, 1 would be created, 1 unchanged, 1 failed.",
    }
    assert " DP008 " not in result.stderr  # the warnings are in the document

    result = migrate("--output-format", "json", str(train))
    assert result.exit_code == 0
    done, helpers = json.loads(result.stdout)["files"]
    assert done["status"] == "migrated" and done["written_to"] == str(train)
    assert helpers["path"] == str(tmp_path / "_dp2ddp.py") and helpers["status"] == "migrated"


def test_github_annotations(tmp_path: Path) -> None:
    train = write(tmp_path / "a,b:c.py", TWO_BATCHNORMS.format(first="", second=""))
    broken = write(tmp_path / "broken.py", BROKEN)
    result = migrate("--check", "--output-format", "github", str(train), str(broken))
    assert result.exit_code == 2
    name = str(train).replace(",", "%2C").replace(":", "%3A")
    assert result.stdout.splitlines() == [
        f"::error file={name},line=9,col=1,title=dp2ddp migrate --check::dp2ddp migrate would "
        f"rewrite this file (it uses DataParallel): run dp2ddp migrate {train}",
        f"::warning file={name},line=5,col=5,title=DP008::BatchNorm statistics are per process: "
        "nn.BatchNorm1d and 1 more",
        f"::error file={broken},line=1,col=24,title=dp2ddp::'(' was never closed",
    ]
    # Not --check: warnings only. (With broken.py beside it, which mentions DataParallel and
    # which train.py's program does not import, a second annotation is DP034 for that file.)
    result = migrate("--output-format", "github", str(train))
    assert result.exit_code == 0
    assert [line.split()[0] for line in result.stdout.splitlines()] == ["::warning"] * 2
    assert "title=DP034::" in result.stdout.splitlines()[1]
    broken.unlink()
    train.write_text(TWO_BATCHNORMS.format(first="", second=""))
    result = migrate("--output-format", "github", str(train))
    assert result.exit_code == 0
    assert [line.split()[0] for line in result.stdout.splitlines()] == ["::warning"]


def test_github_escaping() -> None:
    assert escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


def test_machine_formats_need_stdout_to_themselves(tmp_path: Path) -> None:
    train = write(tmp_path / "train.py", TWO_BATCHNORMS.format(first="", second=""))
    assert migrate("--diff", "--output-format", "json", str(train)).exit_code == 2
    result = migrate("--output-format", "github", "-", input=b"x = 1\n")
    assert result.exit_code == 2 and "-o FILE" in result.stderr
    out = tmp_path / "out.py"
    result = migrate("--output-format", "json", "-o", str(out), "-", input=train.read_bytes())
    assert result.exit_code == 0 and json.loads(result.stdout)["files"][0]["status"] == "migrated"


def test_verify_reports_the_migration_warnings_as_migrate_does(tmp_path: Path) -> None:
    """verify's migration (of a copy) drops what the settings and noqa comments silence."""
    from dp2ddp.options import MigrateOptions
    from dp2ddp.verify.project import migrate_copy

    text = TWO_BATCHNORMS.format(first="  # noqa: DP008", second="")
    entry = write(tmp_path / "project/train.py", text)
    write(tmp_path / "project/pyproject.toml", "[project]\nname = 'x'\n")
    project = migrate_copy(entry, tmp_path / "work1", MigrateOptions())
    assert [w.split()[1] for w in project.warnings] == ["DP008"]
    assert project.warnings[0].startswith(f"{entry.resolve()}:7:5: ")
    ignored = migrate_copy(entry, tmp_path / "work2", MigrateOptions(ignore=frozenset({"DP008"})))
    assert ignored.warnings == ()


def test_the_ci_workflow_calls_dp2ddp_with_flags_it_has(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/ci.md's workflow parses, and each dp2ddp command in it parses with click (the
    workflow itself was run locally: docs/ci.md#running-the-workflow-locally)."""
    import re
    import shlex

    import click
    import yaml

    text = (Path(__file__).parent.parent / "docs" / "ci.md").read_text()
    found = re.search(r"```yaml\n(name: dp2ddp.*?)```", text, re.S)
    assert found is not None
    workflow = yaml.safe_load(found.group(1))
    assert set(workflow["jobs"]) == {"check", "verify"}
    env = {k: str(v) for k, v in workflow["env"].items()}
    write(tmp_path / "base" / env["ENTRY"], "")
    write(tmp_path / "repo" / env["ENTRY"], "")
    monkeypatch.chdir(tmp_path / "repo")
    commands = [
        line
        for job in workflow["jobs"].values()
        for step in job["steps"]
        for line in step.get("run", "").replace("\\\n", " ").splitlines()
        if line.strip().startswith("dp2ddp ")
    ]
    assert len(commands) == 3
    for line in commands:
        for name, value in env.items():
            line = line.replace(f'"${name}"', shlex.quote(value)).replace(f"${name}", value)
        args = shlex.split(line.split(">")[0])[1:]
        group = click.Context(main)
        command = main.get_command(group, args[0])
        assert command is not None
        command.make_context(args[0], args[1:], parent=group)  # raises on an unknown flag


def test_verify_says_error_once_a_line(tmp_path: Path) -> None:
    """A file verify cannot migrate is reported as migrate reports it: one
    `path:line:col: error: message` line, not "dp2ddp verify: error: ...: error: ..."."""
    broken = write(tmp_path / "train.py", "import torch\nmodel = torch.nn.DataParallel(\n")
    result = CliRunner().invoke(main, ["verify", str(broken)], catch_exceptions=False)
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if "error:" in line]
    assert errors == [f"{broken}:2:30: error: cannot parse: '(' was never closed"]
