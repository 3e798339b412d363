"""analysis/step_guards.py: whether a call of one epoch function for both passes runs its
training steps, read from the call's arguments on the module's def-use view."""

from __future__ import annotations

import libcst as cst
import pytest

from dp2ddp.flow import view
from dp2ddp.transforms._support.nodes import walk
from dp2ddp.transforms.analysis.step_guards import steps_on

HEAD = """
TRAIN, EVAL = "train", "eval"
OFF = False
def run(loader, opt=None, train=True, evaluate=False, mode="train", *rest):
    is_eval = opt is None
    for x in loader:
        loss = x
        {test}
            loss.backward()
"""


def _answers(test: str, calls: list[str]) -> list[bool | None]:
    tree = cst.parse_module(HEAD.format(test=test) + "".join(f"{c}\n" for c in calls))
    flow = view(tree)
    loop = next(n for n in walk(tree) if isinstance(n, cst.For))
    sites = [
        n
        for n in walk(tree)
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == "run"
    ]
    return [steps_on(flow, loop, (site,)) for site in sites]


@pytest.mark.parametrize(
    ("test", "calls", "want"),
    [
        ("if train:", ["run(a)", "run(a, None, False)", "run(a, train=OFF)"], [True, False, False]),
        (
            "if not evaluate:",
            ["run(a)", "run(a, evaluate=True)", "run(a, evaluate=x)"],
            [True, False, None],
        ),
        ("if evaluate:\n            pass\n        else:", ["run(a, evaluate=True)"], [False]),
        (
            "if opt is not None:",
            ["run(a, sgd)", "run(a)", "run(a, opt=None)"],
            [True, False, False],
        ),
        ("if not is_eval:", ["run(a, sgd)", "run(a)"], [True, False]),
        ('if "train" == mode:', ['run(a, mode="val")', "run(a)"], [False, True]),
        (
            'if mode in ("train", "tune"):',
            ['run(a, mode="tune")', 'run(a, mode="val")'],
            [True, False],
        ),
        (
            "if mode != EVAL:",
            ["run(a, sgd, True, False, EVAL)", "run(a, mode=TRAIN)"],
            [False, True],
        ),
        ("if train:", ["run(*args)", "run(a, **options)"], [None, None]),
        ("if x > 0:", ["run(a, train=False)"], [None]),
    ],
)
def test_steps_on(test: str, calls: list[str], want: list[bool | None]) -> None:
    assert _answers(test, calls) == want
