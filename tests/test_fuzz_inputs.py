"""Bounded time and refused inputs, fuzzed (stop 44): valid Python that stresses what a
training script rarely holds but a repository may: mixed tabs and spaces, nesting near
CPython's limits, huge literals and long lines, banners, many decorators, unicode names,
form feeds, CR and CRLF line ends, no final newline. Each goes through the file layer
(`migrate_bytes`: decoding, line ends, re-indentation, the compile check) and must finish
within a bound, with no exception: output that compiles and is a fixed point, or a
one-line `path:line:col: error:` (the file untouched). The shapes are small enough to keep
the file fast; tests/test_bounded_time.py holds the large ones and the linear-growth checks.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dp2ddp.migrate.files import migrate_bytes
from dp2ddp.options import MigrateOptions

BASE = (
    "import torch\n"
    "import torch.nn as nn\n"
    "\n"
    "model = nn.DataParallel(nn.Linear(4, 2))\n"
    "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "for step in range(2):\n"
    "    loss = model(torch.ones(8, 4)).sum()\n"
    "    opt.zero_grad()\n"
    "    loss.backward()\n"
    "    opt.step()\n"
    "    if step:\n"
    "        with torch.no_grad():\n"
    "            print('loss', loss.item())\n"
)
ERROR = re.compile(r"^train\.py:\d+:\d+: error: [^\n]+$")
#: CPU seconds one small shape may take (this process's, the load aside; idle: about one)
BOUND = 15.0


def _deep_blocks(levels: int, unit: str) -> str:
    return "".join(unit * i + "if True:\n" for i in range(levels)) + unit * levels + "pass\n"


#: name -> the text added to BASE (or BASE rewritten)
SHAPES: dict[str, Callable[[], str]] = {
    # stop 43's v2-A: `    \t    ` under a block of 8 spaces (libcst refuses, Python reads)
    "tabs_under_spaces": lambda: BASE.replace("            print", "    \t    print"),
    "spaces_under_a_tab": lambda: (
        BASE.replace("    ", "\t").replace("\t\t\tprint", "\t            print")
    ),
    "tabs_everywhere": lambda: BASE.replace("    ", "\t"),
    "parens_190": lambda: BASE + "x = " + "(" * 190 + "1" + ")" * 190 + "\n",
    "blocks_98": lambda: BASE + _deep_blocks(98, " "),
    "blocks_98_tabs": lambda: BASE + _deep_blocks(98, "\t"),
    "unary_300": lambda: BASE + "x = " + "-" * 300 + "1\n",
    "chain_300": lambda: BASE + "x = " + " + ".join(["a"] * 300) + "\n",
    "list_2k": lambda: BASE + "X = [" + ", ".join(map(str, range(2_000))) + "]\n",
    "line_200k": lambda: BASE + "S = '" + "ab" * 100_000 + "'\n",
    "hash_banner": lambda: BASE + "#" * 50_000 + "\n# " + "=#" * 5_000 + "\n",
    "string_banners": lambda: '"""' + "=" * 20_000 + '"""\n' + "'''#" + "-" * 500 + "'''\n" + BASE,
    "decorators_200": lambda: BASE + "@d\n" * 200 + "def f():\n    pass\n",
    "unicode_names": lambda: BASE.replace("model", "модель").replace("opt", "ｏｐｔ"),
    "form_feeds": lambda: (
        BASE.replace("opt = ", "\f\nopt = ").replace("    opt.step", "\f    opt.step")
    ),
    "crlf": lambda: BASE.replace("\n", "\r\n"),
    "cr": lambda: BASE.replace("\n", "\r"),
    "no_final_newline": lambda: BASE.rstrip("\n"),
    "no_final_newline_tabs": lambda: BASE.replace("    ", "\t").rstrip("\n"),
}  # fmt: skip


def _migrates_within_bound(source: str) -> None:
    data = source.encode()
    compile(data, "train.py", "exec")  # every shape is valid Python
    start = time.process_time()
    outcome, new = migrate_bytes("train.py", data, MigrateOptions(inline_helpers=True))
    elapsed = time.process_time() - start
    assert elapsed < BOUND, f"{elapsed:.1f} s"
    if outcome.status == "failed":
        assert outcome.error is not None and ERROR.match(outcome.error), outcome.error
        assert new is None  # the file is left as it was
        return
    assert new is not None, "every shape wraps a model in DataParallel"
    compile(new, "train.py", "exec")
    again, newer = migrate_bytes("train.py", new, MigrateOptions(inline_helpers=True))
    assert again.status == "unchanged" and newer is None, "not a fixed point"
    if "\r\n" in source:
        assert new.count(b"\r\n") == new.count(b"\n")
    elif "\r" in source:
        assert b"\n" not in new and new.endswith(b"\r")


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_shape_migrates_within_a_bound(name: str) -> None:
    _migrates_within_bound(SHAPES[name]())


#: Indentation units Python reads as consistent when each level adds one of them.
UNITS = ["    ", "\t", "  ", "    \t", " \t", "\t  "]


@st.composite
def mixed_programs(draw: st.DrawFn) -> str:
    """BASE's loop body nested under blocks, each level indented by its own unit appended to
    the enclosing level's text, or by the enclosing level's column written in spaces
    (so that a level does not begin with its parent's text: what libcst refuses)."""
    levels = draw(st.integers(1, 5))
    lines = [line for line in BASE.splitlines() if not line.startswith(" ")][:-1]
    lines += ["for step in range(2):"]
    indent = ""
    for level in range(levels):
        unit = draw(st.sampled_from(UNITS))
        written = indent + unit
        if draw(st.booleans()):
            written = " " * len(written.expandtabs(8))
        lines.append(f"{written}if {level} < 9:")
        indent = written
    body = indent + draw(st.sampled_from(UNITS))
    for statement in ("loss = model(torch.ones(8, 4)).sum()", "opt.zero_grad()"):
        lines.append(body + statement)
    lines += [body + "loss.backward()", body + "opt.step()", body + "print('loss', loss.item())"]
    end = draw(st.sampled_from(["\n", "\r\n", "\r", ""]))
    return "\n".join(lines).replace("\n", end or "\n") + end


@settings(
    max_examples=8,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(mixed_programs())
def test_mixed_indentation_migrates_within_a_bound(source: str) -> None:
    try:
        compile(source, "train.py", "exec")
    except SyntaxError:  # TabError: Python refuses it too (not this test's subject)
        return
    _migrates_within_bound(source)
