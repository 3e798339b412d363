"""`migrate --check` as a linter (ruff's model): every warning left is a finding that fails
`--check`, on files still to migrate and on files already migrated; `# noqa: DPxxx` on its
line or `--ignore` silences one; `--exit-zero` prints them without failing. Warnings the
passes cannot re-derive from migrated code survive as `# dp2ddp: DPxxx` markers
(dp2ddp/migrate/markers.py)."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner, Result

from dp2ddp.cli import main
from dp2ddp.migrate.markers import MARKED, findings, insert, marker_codes

#: DP006 (a draw in the loop): re-derived from the migrated code.
DRAWS = (
    "import torch\n"
    "import torch.nn as nn\n"
    "\n"
    "data = torch.randn(32, 4)\n"
    "model = nn.DataParallel(nn.Linear(4, 4))\n"
    "optimizer = torch.optim.Adam(model.parameters())\n"
    "for step in range(3):\n"
    "    noise = torch.randn_like(data)\n"
    "    loss = (model(data + noise) - data).pow(2).mean()\n"
    "    optimizer.zero_grad()\n"
    "    loss.backward()\n"
    "    optimizer.step()\n"
)
#: DP054 (a file written on rank 0, read by every rank where no barrier can go): the
#: migration guards the write, so the passes cannot see the hazard again: marked.
WRITE_READ = (
    "import json\n"
    "\n"
    "import torch\n"
    "import torch.nn as nn\n"
    "\n"
    "\n"
    "def train(model, features):\n"
    "    for step in range(3):\n"
    "        loss = model(features).sum()\n"
    "        if loss.item() > 100:\n"
    "            return None\n"
    "        with open('stats.json', 'w') as f:\n"
    "            json.dump({'step': step}, f)\n"
    "    with open('stats.json') as f:\n"
    "        return json.load(f)\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    train(nn.DataParallel(nn.Linear(4, 2)), torch.randn(8, 4))\n"
)


def run(*args: str) -> Result:
    return CliRunner().invoke(main, ["migrate", "--isolated", *args], catch_exceptions=False)


def _codes(result: Result) -> list[str]:
    return re.findall(r"^\S+:\d+:\d+: (DP\d+) ", result.stderr, re.M)


def test_a_rederived_warning_fails_check_after_migration(tmp_path: Path) -> None:
    train = tmp_path / "train.py"
    train.write_text(DRAWS)
    assert run(str(train)).exit_code == 0
    assert "# dp2ddp:" not in train.read_text()  # re-derived: no marker needed
    check = run("--check", str(train))
    assert check.exit_code == 1, check.stderr
    assert _codes(check) == ["DP006"]
    assert "1 warning (above) fails --check" in check.stderr
    zero = run("--check", "--exit-zero", str(train))
    assert zero.exit_code == 0 and _codes(zero) == ["DP006"]  # printed, not failing
    assert run("--check", "--ignore", "DP006", str(train)).exit_code == 0
    text = train.read_text().replace("randn_like(data)\n", "randn_like(data)  # noqa: DP006\n")
    train.write_text(text)
    assert run("--check", str(train)).exit_code == 0


def test_a_marked_warning_fails_check_until_resolved_or_silenced(tmp_path: Path) -> None:
    train = tmp_path / "train.py"
    train.write_text(WRITE_READ)
    first = run(str(train))
    assert first.exit_code == 0 and _codes(first) == ["DP054"]
    migrated = train.read_text()
    lines = migrated.splitlines()
    (marker,) = [i for i, line in enumerate(lines) if marker_codes(line) is not None]
    assert lines[marker].strip() == "# dp2ddp: DP054"
    assert lines[marker - 1].strip() == "if ddp_is_main():"
    assert lines[marker + 1].strip().startswith("with open(")  # the write it is about
    check = run("--check", str(train))
    assert check.exit_code == 1, check.stderr
    (warning,) = [line for line in check.stderr.splitlines() if ": DP054 " in line]
    assert warning.startswith(f"{train}:{marker + 2}:")  # the statement below the marker
    assert run(str(train)).exit_code == 0 and train.read_text() == migrated  # fixed point
    assert run("--check", "--exit-zero", str(train)).exit_code == 0
    assert run("--check", "--ignore", "DP054", str(train)).exit_code == 0
    for at in (marker, marker + 1):  # noqa on the marker, or on the statement
        edited = list(lines)
        edited[at] += "  # noqa: DP054"
        train.write_text("\n".join(edited) + "\n")
        assert run("--check", str(train)).exit_code == 0, train.read_text()
    train.write_text("\n".join(lines[:marker] + lines[marker + 1 :]) + "\n")  # resolved
    assert run("--check", str(train)).exit_code == 0


def test_a_silenced_warning_leaves_no_marker(tmp_path: Path) -> None:
    train = tmp_path / "train.py"
    train.write_text(WRITE_READ.replace("'w') as f:\n", "'w') as f:  # noqa: DP054\n"))
    assert run(str(train)).exit_code == 0
    assert "# dp2ddp:" not in train.read_text()
    assert run("--check", str(train)).exit_code == 0


def test_check_fails_on_a_file_warned_about_before_migration(tmp_path: Path) -> None:
    """Unmigrated: fails as a file to migrate (exit 1 also with --exit-zero)."""
    train = tmp_path / "train.py"
    train.write_text(WRITE_READ)
    assert run("--check", str(train)).exit_code == 1
    assert run("--check", "--exit-zero", str(train)).exit_code == 1
    assert train.read_text() == WRITE_READ


def test_check_on_a_file_without_dataparallel_reads_its_markers(tmp_path: Path) -> None:
    """The no-op path (no parse) still reads markers: a migrated module is such a file."""
    plain = tmp_path / "plain.py"
    plain.write_text("import os\n\n# dp2ddp: DP030\nprint(os.getcwd())\n")
    result = run("--check", str(plain))
    assert result.exit_code == 1 and f"{plain}:4:1: DP030 " in result.stderr
    plain.write_text("import os\n\nprint(os.getcwd())\n")
    assert run("--check", str(plain)).exit_code == 0


def test_markers_go_above_the_statement_never_inside_it() -> None:
    code = "x = f(\n    1,\n    2,\n)\ns = '''a\nb'''\n"
    assert "DP030" in MARKED
    marked = insert(code, [(3, "DP030"), (6, "DP030")], 88)
    assert marked.splitlines()[0] == "# dp2ddp: DP030 running figure printed from this rank's shard"
    assert marked.splitlines()[5] == "# dp2ddp: DP030 running figure printed from this rank's shard"
    compile(marked, "m.py", "exec")
    assert insert(marked, [(4, "DP030")], 88) == marked  # already marked there
    assert [(d.line, d.code) for d in findings(marked)] == [(2, "DP030"), (7, "DP030")]
    assert insert(code, [(3, "DP006")], 88) == code  # re-derived codes are not marked
    assert insert(code, [(3, "DP030")], 20).splitlines()[0] == "# dp2ddp: DP030"  # width
    shebang = "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\nimport os\n"
    assert insert(shebang, [(1, "DP025")], 20).splitlines()[2] == "# dp2ddp: DP025"


#: DP066 (a file written on rank 0 that a later read on every rank may name by another
#: spelling): marked as DP054 is.
MAYBE_READ = (
    "import numpy as np\n"
    "import torch.nn as nn\n"
    "\n"
    "\n"
    "def features(names):\n"
    "    for name in names:\n"
    "        np.save(f'{name}.feat.npy', np.arange(2))\n"
    "    return np.load('a.feat.npy')\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    nn.DataParallel(nn.Linear(4, 2))\n"
    "    features(['a'])\n"
)


def test_a_maybe_read_is_marked_and_fails_check(tmp_path: Path) -> None:
    """DP066 names the write's and the read's lines, and fails --check once migrated."""
    train = tmp_path / "train.py"
    train.write_text(MAYBE_READ)
    first = run(str(train))
    assert first.exit_code == 0 and _codes(first) == ["DP066"]
    assert "written on rank 0 at line 7" in first.stderr
    assert "reads at line 8" in first.stderr
    lines = train.read_text().splitlines()
    (marker,) = [i for i, line in enumerate(lines) if marker_codes(line) is not None]
    assert lines[marker].strip() == "# dp2ddp: DP066"
    assert not any("ddp_barrier()" in line for line in lines[marker:])  # none placed
    check = run("--check", str(train))
    assert check.exit_code == 1 and _codes(check) == ["DP066"], check.stderr
    assert run("--check", "--ignore", "DP066", str(train)).exit_code == 0
