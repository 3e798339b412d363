"""Run docs/ci.md's GitHub Actions workflow locally, as far as it can run outside GitHub.

Every `run:` step of both jobs runs verbatim (bash -e) in a throwaway git repository holding
examples/cnn_trainer/train.py: branch main has the DataParallel original, branch pr its
migration. The install steps are skipped (use the environment dp2ddp is installed in),
${{ github.base_ref }} is main, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY are local files, and
a step's `if:` on steps.base.outputs.migrating is read from GITHUB_OUTPUT. The check job
runs on both branches.

    python scripts/run_ci_workflow.py [VERIFY_FLAGS] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("verify_flags", nargs="?", help="the workflow's VERIFY_FLAGS")
    parser.add_argument("--keep", metavar="DIR", help="work in DIR (emptied) and keep it")
    args = parser.parse_args()
    text = (ROOT / "docs" / "ci.md").read_text()
    found = re.search(r"```yaml\n(name: dp2ddp.*?)```", text, re.S)
    assert found is not None, "no workflow in docs/ci.md"
    workflow = yaml.safe_load(found.group(1))
    work = Path(args.keep or tempfile.mkdtemp(prefix="dp2ddp-ci-"))
    shutil.rmtree(work, ignore_errors=True)
    repo = work / "repo"
    repo.mkdir(parents=True)

    def git(command: str) -> None:
        subprocess.run(f"git {command}", shell=True, cwd=repo, check=True)

    git("init -q -b main . && git config user.email ci@example.com && git config user.name ci")
    shutil.copy(ROOT / "examples" / "cnn_trainer" / "train.py", repo / "train.py")
    (repo / "requirements.txt").write_text("")
    (repo / "pyproject.toml").write_text('[project]\nname = "cnn"\n\n[tool.dp2ddp]\nignore = []\n')
    git("add -A && git commit -qm original && git checkout -q -b pr")
    git("update-ref refs/remotes/origin/main main")
    subprocess.run(["dp2ddp", "migrate", "-q", "train.py"], cwd=repo, check=True)
    git("add -A && git commit -qm migrated")

    env = dict(os.environ, **{k: str(v) for k, v in workflow["env"].items()})
    if args.verify_flags is not None:
        env["VERIFY_FLAGS"] = args.verify_flags
    output = work / "github_output"
    env["GITHUB_OUTPUT"], env["GITHUB_STEP_SUMMARY"] = str(output), str(work / "summary.md")
    codes: list[str] = []
    for name, job in workflow["jobs"].items():
        for branch in ("main", "pr") if name == "check" else ("pr",):
            git(f"checkout -q {branch}")
            print(f"===== job {name} on branch {branch}", flush=True)
            for step in job["steps"]:
                if "run" not in step or step["name"].startswith("Install"):
                    continue
                migrating = output.exists() and "migrating=true" in output.read_text()
                if "migrating == 'true'" in step.get("if", "") and not migrating:
                    print(f"--- skipped: {step['name']}")
                    continue
                script = step["run"].replace("${{ github.base_ref }}", "main")
                print(f"--- {step['name']}\n$ {script.strip()}", flush=True)
                start = time.monotonic()
                rc = subprocess.run(["bash", "-e", "-c", script], cwd=repo, env=env).returncode
                print(f"--- exit {rc} after {time.monotonic() - start:.0f} s", flush=True)
                codes.append(f"{name}@{branch}: {step['name']}: exit {rc}")
    print("===== exit codes", *codes, sep="\n")
    print("===== files:", sorted(p.name for p in repo.glob("dp2ddp*")), "in", repo)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
