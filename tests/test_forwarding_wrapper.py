"""The proof that a DataParallel subclass adds nothing but attribute forwarding
(transforms/_support/forwarding_classes.py, v3-A of stop 43): what it takes, what it does not."""

from __future__ import annotations

import pytest

from dp2ddp.transforms._support.forwarding_classes import forwarding_classes

FORWARDING = '''
import torch


class DataParallel(torch.nn.DataParallel):
    """Passes its arguments on."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super(DataParallel, self).__init__(module, device_ids, output_device, dim)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self.module, name)
'''


def test_pass_through_and_forwarding_is_proved() -> None:
    assert forwarding_classes(FORWARDING) == {"DataParallel": "torch.nn.DataParallel"}


def test_the_rebased_class_is_taken_for_ddp() -> None:
    rebased = (
        "import torch.nn as nn\nfrom torch.nn.parallel import DistributedDataParallel\n"
        "class P(DistributedDataParallel):\n    pass\n"
    )
    assert forwarding_classes(rebased) == {"P": "torch.nn.parallel.DistributedDataParallel"}


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # a method of its own: DataParallel's machinery changed
        (
            "    def __getattr__",
            "    def gather(self, outputs, device):\n        return outputs\n\n    def __getattr__",
        ),
        # state kept by __init__
        ("dim)\n", "dim)\n        self.calls = 0\n"),
        # an argument changed on its way
        ("device_ids, output_device", "[0], output_device"),
        # a parameter not handed on
        ("output_device, dim)\n", "output_device)\n"),
        # the fallback reads something else
        ("getattr(self.module, name)", "getattr(self.module, 'x')"),
        # another exception caught
        ("except AttributeError", "except Exception"),
        # a base not imported from torch
        ("import torch\n", "import mylib as torch\n"),
        # a class attribute
        ('"""Passes its arguments on."""', '"""Passes."""\n    chunk = 2'),
    ],
)
def test_anything_more_is_not_proved(old: str, new: str) -> None:
    assert old in FORWARDING
    assert forwarding_classes(FORWARDING.replace(old, new, 1)) == {}
