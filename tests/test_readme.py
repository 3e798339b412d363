"""README's two set-up commands are the ones CI and newcomers run: keep them honest."""

from __future__ import annotations

import re

from conftest import ROOT


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
        steps = [step.strip() for step in block.split("&&")]
        assert steps[0] == "pip install torch==2.13.0", steps[0]
        assert steps[1].startswith("pip install ") and "torch" not in steps[1], steps[1]


def test_ci_runs_the_readme_commands_verbatim() -> None:
    """.ci/run greps the two commands out of README.md: each pattern must find its block."""
    ci = (ROOT / ".ci" / "run").read_text()
    patterns = re.findall(r"grep -m1 -E '([^']+)' README.md", ci)
    assert len(patterns) == 2, patterns
    lines = (ROOT / "README.md").read_text().splitlines()
    blocks = {b.strip() for b in _commands()}
    for pattern in patterns:
        found = [line for line in lines if re.search(pattern, line)]
        assert found and found[0] in blocks, pattern


def test_example_named_in_readme_exists() -> None:
    text = (ROOT / "README.md").read_text()
    for path in re.findall(r"examples/[\w/]+\.py", text):
        assert (ROOT / path).is_file(), path
