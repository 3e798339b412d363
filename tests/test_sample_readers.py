"""Functions of another module that only read samples from a loader they are given (issue
28, class G4 across modules): the program fact `ProgramFacts.sample_readers`
(shared_draws/whole_reads.module_sample_readers), proved by what the function does."""

from __future__ import annotations

import pytest

from dp2ddp.transforms.shared_draws.whole_reads import module_sample_readers

HEADER = "import torch\nimport numpy as np\n\n"


def test_a_restarting_gatherer_is_a_reader_of_its_loader_parameter() -> None:
    source = HEADER + (
        "def get_nsamples(data_loader, n):\n"
        "    xs, k = [], 0\n"
        "    while k < n:\n"
        "        x, y = next(iter(data_loader))\n"
        "        xs.append(x)\n"
        "        k += x.size(0)\n"
        "    return torch.cat(xs)[:n]\n"
    )
    assert module_sample_readers("gan.utils", source) == {
        "gan.utils.get_nsamples": ((0, "data_loader"),)
    }


def test_a_loop_with_break_over_an_enumerated_parameter_is_a_reader() -> None:
    source = HEADER + (
        "def first(count, loader):\n"
        "    taken = []\n"
        "    for i, (x,) in enumerate(loader):\n"
        "        taken.append(x)\n"
        "        if i + 1 == count:\n"
        "            break\n"
        "    return torch.cat(taken)\n"
    )
    assert module_sample_readers("utils", source) == {"utils.first": ((1, "loader"),)}


@pytest.mark.parametrize(
    "body",
    [
        # trains: an optimizer step is no gathering
        "    for x, y in loader:\n        opt.zero_grad()\n        model(x).sum().backward()\n"
        "        opt.step()\n    return x\n",
        # hands the batches on
        "    for x in loader:\n        yield x\n",
        # the parameter used otherwise than iterated
        "    print(len(loader.dataset))\n    return next(iter(loader))\n",
        # a library outside torch may do anything
        "    xs = [x for x in loader]\n    return np.save('x.npy', xs)\n",
    ],
)
def test_a_function_that_does_more_than_read_is_no_reader(body: str) -> None:
    source = HEADER + "def helper(loader, model=None, opt=None):\n" + body
    assert module_sample_readers("utils", source) == {}


def test_a_decorated_function_or_a_module_that_does_not_parse_has_none() -> None:
    decorated = HEADER + "@torch.no_grad()\ndef get(loader):\n    return next(iter(loader))\n"
    assert module_sample_readers("utils", decorated) == {}
    assert module_sample_readers("utils", "def get(loader:\n    return next(iter(loader))\n") == {}
