"""Original scripts run as `python -c "...runpy.run_path(entry)..."` each would, but in one
process that imports torch once and forks a child per script.

A test that compares a migration with its original runs the original in a fresh
interpreter (its own working folder and sys.path, nothing imported before it): about 3 to
4 CPU s each here, nearly all of it importing torch, for scripts that train in well under a
second. `run_originals` starts one interpreter, imports torch there, and forks a child per
script: the child starts where a fresh interpreter would (torch imported, none of the
scripts' modules), changes to the script's folder, puts that folder on sys.path after `''`
(as `-c` and PYTHONPATH did), writes no bytecode (as PYTHONDONTWRITEBYTECODE=1 did), runs the
entry as `__main__` with its stdout and stderr in files of its own, and prints the module's
`E2E_DIGEST` as JSON on the last line of that stdout. Each script's result is an `Original`,
read as the `subprocess.run` result it replaces (returncode, stdout, stderr). POSIX only
(fork), like dp2ddp.verify.pairs_runner.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

#: The forking interpreter: argv[1] is a JSON list of [folder, entry, out] (out: the stem of
#: the child's .stdout/.stderr/.code files).
_FORKER = """
import json, os, runpy, sys, traceback
import torch  # once, before the forks: what every script would import first

for folder, entry, out in json.loads(sys.argv[1]):
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            with open(out + ".stdout", "w") as stdout, open(out + ".stderr", "w") as stderr:
                os.dup2(stdout.fileno(), 1)
                os.dup2(stderr.fileno(), 2)
                sys.stdout = os.fdopen(1, "w", closefd=False)
                sys.stderr = os.fdopen(2, "w", closefd=False)
                try:
                    os.chdir(folder)
                    sys.path[:1] = ["", folder]
                    sys.argv = ["-c"]
                    sys.dont_write_bytecode = True
                    digest = runpy.run_path(entry, run_name="__main__")["E2E_DIGEST"]
                    print(json.dumps(digest))
                    code = 0
                except SystemExit as exc:
                    code = exc.code if isinstance(exc.code, int) else 1
                except BaseException:
                    traceback.print_exc()
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    with open(out + ".code", "w") as handle:
        handle.write(str(os.waitstatus_to_exitcode(status)))
"""


@dataclass(frozen=True)
class Original:
    """One script's run, as the `subprocess.run(..., capture_output=True)` it replaces."""

    returncode: int
    stdout: str
    stderr: str


def run_originals(
    scripts: dict[str, tuple[Path, str]], out: Path, env: dict[str, str], timeout: float = 300.0
) -> dict[str, Original]:
    """Each script (key: its folder and entry, relative to it) run as above; `out` holds
    the children's captured output. `timeout` is each script's, as each `subprocess.run`
    had its own: the forker gets their sum. A script the forker never reached (it was
    killed, or timed out) reads as returncode -1 with the forker's stderr."""
    out.mkdir(parents=True, exist_ok=True)
    plan = [[str(folder), entry, str(out / key)] for key, (folder, entry) in scripts.items()]
    proc = subprocess.run(
        [sys.executable, "-c", _FORKER, json.dumps(plan)],
        capture_output=True,
        text=True,
        timeout=timeout * len(scripts),
        env=env,
    )
    results = {}
    for key in scripts:
        code = out / f"{key}.code"
        if not code.exists():
            results[key] = Original(-1, "", proc.stdout + proc.stderr)
            continue
        results[key] = Original(
            int(code.read_text()),
            (out / f"{key}.stdout").read_text(),
            (out / f"{key}.stderr").read_text(),
        )
    return results
