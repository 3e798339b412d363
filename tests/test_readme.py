"""README's two set-up commands are the ones CI and newcomers run: keep them honest."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```(?:bash|sh|console)\n(.*?)```", text, flags=re.S)


def test_readme_gives_the_two_setup_commands() -> None:
    blocks = [b.strip() for b in _commands()]
    install_and_run = [b for b in blocks if "dp2ddp migrate examples/" in b]
    tests = [b for b in blocks if "pytest" in b and "[test]" in b]
    assert install_and_run, "README must show the install-and-migrate-an-example command"
    assert tests, "README must show the install-and-test command"
    for block in (install_and_run[0], tests[0]):
        # torch first, pinned, so pip never pulls the multi-GB CUDA build.
        assert block.index("torch==2.13.0") < block.index("pip install -")


def test_ci_runs_the_readme_test_command() -> None:
    test_command = next(b.strip() for b in _commands() if "pytest" in b and "[test]" in b)
    ci = (ROOT / ".ci" / "run").read_text()
    for part in re.split(r"\s*&&\s*", test_command):
        assert part.replace("pip install", "pip install -q") in ci or part in ci, part


def test_example_named_in_readme_exists() -> None:
    text = (ROOT / "README.md").read_text()
    for path in re.findall(r"examples/[\w/]+\.py", text):
        assert (ROOT / path).is_file(), path
