"""analysis/seeded_streams.py: which process-wide streams every rank provably seeds alike
(DP067's proof), each reason alone."""

from __future__ import annotations

import ast

import pytest

from dp2ddp.transforms.analysis.seeded_streams import (
    handed_seeds,
    module_streams,
    parameter_seeders,
    seeded_streams,
    seeding,
)

HEAD = "import random\nimport numpy as np\nimport numpy.random as npr\nimport torch\n"
HEAD += "from torch.utils.data import DataLoader\n"


def _alike(*sources: str) -> frozenset[str]:
    return seeded_streams(module_streams(ast.parse(HEAD + s)) for s in sources)


W = {"numpy:workers", "random:workers"}


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # never seeded, no workers: every stream differs per process (torch's too: its
        # default seed is per process on torch 2.13, stop 51)
        ("torch.manual_seed(1)\nDataLoader(d, num_workers=0)\n", {"torch"}),
        ("DataLoader(d, batch_size=4)\n", set()),
        ("torch.random.manual_seed(1)\n", {"torch"}),
        ("torch.manual_seed()\n", set()),
        # seeded at module level, by alias, with set_state
        ("np.random.seed(0)\n", {"numpy"}),
        ("npr.seed(0)\n", {"numpy"}),
        ("random.seed(0)\n", {"random"}),
        ("np.random.set_state(s)\n", {"numpy"}),
        # a seed without a value draws from entropy: no proof
        ("np.random.seed()\n", set()),
        # in a function never called / called
        ("def set_seed(s):\n    np.random.seed(s)\n", set()),
        ("def set_seed(s):\n    np.random.seed(s)\nset_seed(1)\n", {"numpy"}),
        # workers seed random and numpy from the loader's base seed, drawn from torch's
        # generator: alike only where torch's is seeded (or the loader has its own)
        ("DataLoader(d, num_workers=2)\n", set()),
        ("torch.manual_seed(0)\nDataLoader(d, num_workers=2)\n", {"torch", "numpy", "random"} | W),
        (
            "torch.manual_seed(0)\nDataLoader(d, num_workers=args.workers)\n",
            {"torch", "numpy", "random"} | W,
        ),
        (
            "torch.manual_seed(0)\nDataLoader(d, 4, True, None, None, 3)\n",
            {"torch", "numpy", "random"} | W,
        ),
        ("torch.manual_seed(0)\nDataLoader(d, **kw)\n", {"torch", "numpy", "random"} | W),
        ("DataLoader(d, num_workers=2, generator=g)\n", {"numpy", "random"} | W),
        (
            "torch.manual_seed(0)\nrandom.seed(0)\nDataLoader(d, num_workers=2)\n",
            {"torch", "numpy", "random", "numpy:workers"},
        ),
    ],
)
def test_one_module(source: str, expected: set[str]) -> None:
    assert _alike(source) == expected


def test_a_seed_in_one_module_called_from_another() -> None:
    helper = "def set_seed(s):\n    random.seed(s)\n"
    assert _alike(helper) == set()
    assert _alike(helper, "import util\nutil.set_seed(0)\n") == {"random"}


def _handed(*sources: str) -> frozenset[str]:
    trees = [ast.parse(HEAD + s) for s in sources]
    streams = [module_streams(t) for t in trees]
    seeders = parameter_seeders(streams)
    return seeded_streams(streams, [h for t in trees for h in handed_seeds(t, seeders)])


def test_a_seed_handed_to_another_modules_function() -> None:
    """Stop 59 s2 (round 10 v1-D's cross-module form): the seed is a parameter; what the
    callers hand it decides, through keys another module binds to a draw."""
    helper = "def set_seed(s):\n    torch.manual_seed(s)\n"
    config = "class C:\n    def __init__(self):\n        self.seed = np.random.randint(99)\n"
    assert _handed(helper, "import util\nutil.set_seed(3)\n") == {"torch"}
    assert _handed(helper, "import util\nutil.set_seed(cfg['seed'])\n", config) == set()
    assert _handed(helper, "import time\nimport util\nutil.set_seed(s=time.time())\n") == set()
    # a caller handing a value no rank draws seeds alike, whatever the others hand
    both = "import util\nutil.set_seed(cfg['seed'])\nutil.set_seed(5)\n"
    assert _handed(helper, both, config) == {"torch"}
    # the stream the seed is drawn from, seeded alike first: alike
    seeded = "import util\nnp.random.seed(1)\nutil.set_seed(cfg['seed'])\n"
    assert _handed(helper, seeded, config) == {"torch", "numpy"}


def test_the_words_for_how_a_stream_is_seeded() -> None:
    alike = _alike("torch.manual_seed(0)\nrandom.seed(0)\nDataLoader(d, num_workers=2)\n")
    assert seeding("random", alike) == "the program seeds `random` with a value"
    assert "each loader worker seeds it" in seeding("numpy", alike)
