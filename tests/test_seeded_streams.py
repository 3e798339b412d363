"""analysis/seeded_streams.py: which process-wide streams every rank provably seeds alike
(DP067's proof), each reason alone."""

from __future__ import annotations

import ast

import pytest

from dp2ddp.transforms.analysis.seeded_streams import module_streams, seeded_streams

HEAD = "import random\nimport numpy as np\nimport numpy.random as npr\nimport torch\n"
HEAD += "from torch.utils.data import DataLoader\n"


def _alike(*sources: str) -> frozenset[str]:
    return seeded_streams(module_streams(ast.parse(HEAD + s)) for s in sources)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # never seeded, no workers: numpy and random differ per process
        ("torch.manual_seed(1)\nDataLoader(d, num_workers=0)\n", {"torch"}),
        ("DataLoader(d, batch_size=4)\n", {"torch"}),
        # seeded at module level, by alias, with set_state
        ("np.random.seed(0)\n", {"torch", "numpy"}),
        ("npr.seed(0)\n", {"torch", "numpy"}),
        ("random.seed(0)\n", {"torch", "random"}),
        ("np.random.set_state(s)\n", {"torch", "numpy"}),
        # a seed without a value draws from entropy: no proof
        ("np.random.seed()\n", {"torch"}),
        # in a function never called / called
        ("def set_seed(s):\n    np.random.seed(s)\n", {"torch"}),
        ("def set_seed(s):\n    np.random.seed(s)\nset_seed(1)\n", {"torch", "numpy"}),
        # workers seed random and numpy from torch's base seed
        ("DataLoader(d, num_workers=2)\n", {"torch", "numpy", "random"}),
        ("DataLoader(d, num_workers=args.workers)\n", {"torch", "numpy", "random"}),
        ("DataLoader(d, 4, True, None, None, 3)\n", {"torch", "numpy", "random"}),
        ("DataLoader(d, **kw)\n", {"torch", "numpy", "random"}),
    ],
)
def test_one_module(source: str, expected: set[str]) -> None:
    assert _alike(source) == expected


def test_a_seed_in_one_module_called_from_another() -> None:
    helper = "def set_seed(s):\n    random.seed(s)\n"
    assert _alike(helper) == {"torch"}
    assert _alike(helper, "import util\nutil.set_seed(0)\n") == {"torch", "random"}
