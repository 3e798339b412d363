"""The program's per-sample classes (dp2ddp/transforms/analysis/sample_classes.py, issue 28):
its Datasets across modules and the transform classes they run on each sample."""

from __future__ import annotations

import ast
import textwrap

from dp2ddp.facts import SampleClasses
from dp2ddp.transforms.analysis.sample_classes import program_samples, sample_summary


def _samples(*modules: tuple[str, str, bool]) -> SampleClasses:
    return program_samples(
        sample_summary(name, ast.parse(textwrap.dedent(source)), package)
        for name, source, package in modules
    )


BASE = (
    "fileset",
    """
    import torch.utils.data as uData

    class BaseSetFiles(uData.Dataset):
        def __len__(self):
            return 4
    """,
    True,
)


def test_a_dataset_of_a_base_in_a_package_init_under_another_name() -> None:
    """round 24, VDNet: `class SimulateTrain(BaseDataSetImg)`, the base a uData.Dataset of
    the package's `__init__`; a plain class of the same module is none."""
    sets = (
        "fileset.sets",
        """
        from . import BaseSetFiles

        class RandomFileSet(BaseSetFiles):
            pass

        class Probe:
            pass
        """,
        False,
    )
    samples = _samples(BASE, sets)
    assert {"fileset.sets.RandomFileSet", "RandomFileSet", "BaseSetFiles"} <= samples.datasets
    assert "Probe" not in samples.datasets


def test_a_dataset_of_a_reexported_base() -> None:
    """`from fileset import Base` where the package re-exports it from `fileset.base`."""
    base = ("fileset.base", BASE[1], False)
    init = ("fileset", "from .base import BaseSetFiles\n", True)
    mine = "from fileset import BaseSetFiles\nclass Mine(BaseSetFiles):\n    pass\n"
    user = ("train", mine, False)
    assert "Mine" in _samples(base, init, user).datasets


def test_transforms_a_dataset_runs() -> None:
    """round 24, ARFlow: a crop appended to a list handed to the program's own Compose,
    returned by a function whose result is handed to a Dataset's constructor; an object
    handed directly, and one built in a Dataset's method. A class handed to a non-Dataset
    is none."""
    crops = (
        "aug.crops",
        """
        class Compose:
            def __init__(self, ts):
                self.ts = ts

        class RandomCrop:
            pass

        class Flip:
            pass

        class Jitter:
            pass

        class Logger:
            pass
        """,
        False,
    )
    build = (
        "aug.build",
        """
        from aug.crops import Compose, RandomCrop

        def get_co_transforms(crop):
            transforms = []
            if crop:
                transforms.append(RandomCrop(crop))
            return Compose(transforms)
        """,
        False,
    )
    data = (
        "data",
        """
        from torch.utils.data import Dataset
        from aug.crops import Jitter

        class Frames(Dataset):
            def __init__(self, co_transform=None, flip=None):
                self.jitter = Jitter()
        """,
        False,
    )
    train = (
        "train",
        """
        from aug.build import get_co_transforms
        from aug.crops import Flip, Logger
        from data import Frames

        co = get_co_transforms(4)
        dataset = Frames(co_transform=co, flip=Flip())
        Trainer(Logger())
        """,
        False,
    )
    transforms = _samples(crops, build, data, train).transforms
    assert {"Compose", "RandomCrop", "Flip", "Jitter"} <= transforms
    assert "Logger" not in transforms
