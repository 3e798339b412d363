"""The docs stay true: generated pages match their sources, links resolve, the hook works."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml
from click.testing import CliRunner
from conftest import FIXTURES, ROOT

from dp2ddp.cli import main
from dp2ddp.codes import CODES

DOCS = ROOT / "docs"
REGENERATE = "python scripts/gen_docs.py"


def _gen_docs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_docs", ROOT / "scripts" / "gen_docs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_docs", module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generated() -> dict[Path, str]:
    return _gen_docs().generate()  # type: ignore[no-any-return]


def test_generated_pages_are_up_to_date(generated: dict[Path, str]) -> None:
    assert {p.name for p in generated} == {"transforms.md", "warnings.md"}
    for path, content in generated.items():
        assert path.exists(), f"{path.relative_to(ROOT)} is missing: run `{REGENERATE}`"
        assert path.read_text() == content, (
            f"{path.relative_to(ROOT)} is stale (a fixture, transform or warning code "
            f"changed): run `{REGENERATE}` and commit the result"
        )


def test_every_fixture_and_code_is_documented(generated: dict[Path, str]) -> None:
    transforms = generated[DOCS / "transforms.md"]
    for case in sorted(FIXTURES.glob("*/input.py")):
        assert f"\n### {case.parent.name}\n" in transforms
    warnings = generated[DOCS / "warnings.md"]
    for code, (title, explanation) in CODES.items():
        assert f"\n## {code}\n\n**{title}.** {explanation}\n" in warnings


def test_setup_block_is_collapsed_in_diffs() -> None:
    gen = _gen_docs()
    from dp2ddp import MigrateOptions, migrate_source

    source = "import torch\n\nmodel = torch.nn.DataParallel(torch.nn.Linear(1, 1))\n"
    # The golden fixtures are in the single-file form (tests/test_fixtures.py).
    migrated = migrate_source(source, MigrateOptions(inline_helpers=True)).code
    collapsed = gen._collapse_setup(migrated)
    assert "def ddp_setup" in migrated and "def ddp_setup" not in collapsed
    assert "# [dp2ddp setup block, " in collapsed and "ddp_setup()" in collapsed
    assert "DistributedDataParallel(" in collapsed  # the user's code stays


def _slug(heading: str) -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(text: str) -> set[str]:
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return {_slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, flags=re.M)}


def _links() -> list[tuple[Path, str]]:
    pages = sorted(DOCS.glob("*.md")) + [ROOT / "README.md"]
    found = []
    for page in pages:
        text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
        found += [(page, target) for target in re.findall(r"\]\(([^)\s]+)\)", text)]
    return found


def test_relative_links_resolve() -> None:
    broken = []
    for page, target in _links():
        if re.match(r"[a-z]+:", target):
            continue  # external
        file_part, _, anchor = target.partition("#")
        path = (page.parent / file_part).resolve() if file_part else page
        if not path.exists():
            broken.append(f"{page.name}: {target} (no such file)")
        elif anchor and path.suffix == ".md" and anchor not in _anchors(path.read_text()):
            broken.append(f"{page.name}: {target} (no such heading)")
    assert not broken, "broken links:\n" + "\n".join(broken)


# -- the pre-commit hook ---------------------------------------------------------------------
def test_pre_commit_hook_definition() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    (hook,) = [h for h in hooks if h["id"] == "dp2ddp-check"]
    assert hook["entry"] == "dp2ddp migrate --check --jobs 1"  # pre-commit parallelises
    assert not hook.get("require_serial", False)
    assert hook["language"] == "python"
    assert hook["types"] == ["python"]
    assert "dp2ddp-check" in (DOCS / "pre-commit.md").read_text()


def test_pre_commit_recipes_work_from_a_clone() -> None:
    """The recipes in README.md, docs/pre-commit.md and docs/ci.md name no placeholder
    (`<owner>`) nor a tag that does not exist: a local hook running the shipped entry."""
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    (shipped,) = [h for h in hooks if h["id"] == "dp2ddp-check"]
    for page in (ROOT / "README.md", DOCS / "pre-commit.md", DOCS / "ci.md"):
        text = page.read_text()
        assert "<owner>" not in text and "v0.1.0" not in text, page
        blocks = re.findall(r"```yaml\n(repos:.*?)```", text, re.S)
        assert blocks, f"no pre-commit recipe in {page}"
        for block in blocks:
            (repo,) = yaml.safe_load(block)["repos"]
            (hook,) = repo["hooks"]
            assert repo["repo"] == "local" and hook["language"] == "system", page
            assert hook["id"] == shipped["id"] and hook["entry"] == shipped["entry"], page
            assert hook["types"] == shipped["types"], page


def test_ruff_keeps_dp_noqa_comments_is_documented() -> None:
    """ruff's RUF100/RUF102 remove `# noqa: DP008` unless the prefix is external."""
    for page in (ROOT / "README.md", DOCS / "ci.md"):
        assert re.search(r'\[tool\.ruff\.lint\]\n\s*external = \["DP"\]', page.read_text()), page


def test_pre_commit_hook_entry_fails_only_on_dataparallel(tmp_path: Path) -> None:
    """What pre-commit runs: the entry with the staged Python files appended."""
    clean = tmp_path / "clean.py"
    clean.write_text("import torch\n\nmodel = torch.nn.Linear(2, 2)\n")
    dirty = tmp_path / "dirty.py"
    source = "import torch\n\nmodel = torch.nn.DataParallel(torch.nn.Linear(2, 2))\n"
    dirty.write_text(source)
    runner = CliRunner()
    ok = runner.invoke(main, ["migrate", "--check", str(clean)])
    assert ok.exit_code == 0, ok.output
    failed = runner.invoke(main, ["migrate", "--check", str(clean), str(dirty)])
    assert failed.exit_code != 0
    assert "dirty.py" in failed.output
    assert dirty.read_text() == source  # --check never writes


def test_codes_are_distinct_and_each_is_documented() -> None:
    """A repeated key in the CODES literal would silently replace the first entry."""
    import ast

    keys = [
        key.value
        for path in sorted((ROOT / "dp2ddp" / "codes").glob("dp*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Dict)
        for key in node.keys
        if isinstance(key, ast.Constant) and isinstance(key.value, str)
    ]
    assert keys == list(CODES), "a code is defined twice in dp2ddp/codes/"
    assert keys == sorted(keys), "each code in its file, in order"
    assert all(re.fullmatch(r"DP\d{3}", code) for code in CODES)
    titles = [title for title, _ in CODES.values()]
    assert len(set(titles)) == len(titles)
    committed = (DOCS / "warnings.md").read_text()
    for code in CODES:
        assert f"\n## {code}\n" in committed, f"{code} is not in docs/warnings.md"


def test_every_code_is_produced_by_a_fixture() -> None:
    """Golden file fixtures, or golden program fixtures for the program-only codes, or
    golden notebook fixtures (DP038)."""
    programs = ROOT / "tests" / "program_fixtures"
    notebooks = ROOT / "tests" / "notebook_fixtures"
    produced = {
        line.split()[1]
        for path in [
            *FIXTURES.glob("*/warnings.txt"),
            *programs.glob("*/warnings.txt"),
            *notebooks.glob("*/warnings.txt"),
        ]
        for line in path.read_text().splitlines()
        if line.strip()
    }
    assert sorted(set(CODES) - produced) == [], "codes no golden fixture produces"


def test_one_name_per_transform() -> None:
    """NAME is the pass's module under dp2ddp.transforms and its fixtures' name prefix."""
    from dp2ddp.migrate.pipeline import PIPELINE

    fixtures = [p.name for p in FIXTURES.iterdir() if p.is_dir()]
    for transform in PIPELINE:
        assert transform.__module__ == f"dp2ddp.transforms.{transform.NAME}"
    names = {t.NAME for t in PIPELINE}
    for name in fixtures:
        assert name.startswith("noop_") or any(name.startswith(n + "_") for n in names), name
