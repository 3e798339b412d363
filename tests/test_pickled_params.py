"""Functions that pickle a parameter whole (class W2, foamliu's `save_checkpoint`): the
program fact `ProgramFacts.pickling` (transforms/analysis/pickled_params.py), proved by what
the function does with the parameter, not by its name."""

from __future__ import annotations

from dp2ddp.facts import PickledParam
from dp2ddp.transforms.analysis.pickled_params import module_pickled_params

HEADER = "import pickle\nimport torch\nfrom torch import save as keep\n\n"


def _found(body: str) -> dict[str, tuple[tuple[str, int | None, int, bool], ...]]:
    found = module_pickled_params("utils", "utils.py", HEADER + body)
    return {
        name: tuple((p.name, p.position, p.line, p.only) for p in params)
        for name, params in found.items()
    }


def test_a_dict_saved_twice_pickles_every_value_parameter() -> None:
    found = _found(
        "def save_checkpoint(epoch, model, optimizer, is_best):\n"
        "    state = {'epoch': epoch, 'model': model, 'optimizer': optimizer}\n"
        "    torch.save(state, 'checkpoint.tar')\n"
        "    if is_best:\n"
        "        torch.save(state, 'BEST_checkpoint.tar')\n"
    )
    assert found == {
        "utils.save_checkpoint": (
            ("epoch", 0, 7, True),
            ("model", 1, 7, True),
            ("optimizer", 2, 7, True),
        )
    }


def test_a_filled_container_and_a_state_dict_read_are_only_pickling() -> None:
    found = _found(
        "def dump(path, *, net):\n"
        "    state = {}\n"
        "    state['sd'] = net.state_dict()\n"
        "    state['net'] = net\n"
        "    with open(path, 'wb') as f:\n"
        "        pickle.dump(state, f)\n"
    )
    assert found == {"utils.dump": (("net", None, 10, True),)}


def test_a_save_imported_under_another_name_is_found_by_qualified_name() -> None:
    assert _found("def save(net, path):\n    keep([net], path)\n") == {
        "utils.save": (("net", 0, 6, True),)
    }


def test_other_uses_make_it_not_only_pickled() -> None:
    found = _found(
        "def forward_too(net, x, path):\n"
        "    torch.save(net, path)\n"
        "    return net(x)\n"
        "\n"
        "def inner_too(net, path):\n"
        "    torch.save({'net': net, 'inner': net.module}, path)\n"
        "\n"
        "def returned(net, path):\n"
        "    state = {'net': net}\n"
        "    torch.save(state, path)\n"
        "    return state\n"
        "\n"
        "def rebound(net, path):\n"
        "    torch.save(net, path)\n"
        "    net = None\n"
        "\n"
        "def as_module(net, path):\n"
        "    torch.save(torch.nn.Sequential(net), path)\n"
    )
    assert {name: params[0][3] for name, params in found.items()} == {
        "utils.forward_too": False,
        "utils.inner_too": False,
        "utils.returned": False,
        "utils.rebound": False,
        "utils.as_module": False,
    }


def test_state_dicts_and_other_uses_are_not_pickling_the_parameter() -> None:
    found = _found(
        "def weights(net, path):\n"
        "    torch.save(net.state_dict(), path)\n"
        "\n"
        "def not_saving(net, path):\n"
        "    print(net, path)\n"
    )
    assert found == {}


def test_the_place_is_named_for_the_warning() -> None:
    param = PickledParam("model", 2, 12, True, "utils.py")
    assert param.where() == "utils.py:12"
    assert PickledParam("model", 2, 12, True).where() == "line 12"
