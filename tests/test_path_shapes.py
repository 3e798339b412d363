"""path_shapes.py: which write/read path pairs name one file, may, or never do (issue 29)."""

from __future__ import annotations

import pytest

from dp2ddp.transforms.rank_zero.path_shapes import (
    apart,
    may_name_same,
    names_within,
    spelled_same,
)


@pytest.mark.parametrize(
    ("write", "read", "expected"),
    [
        ("cache_file(a)", "cache_file(b)", True),
        ('cache_file("train")', 'cache_file("test")', False),
        ('os.path.join(args.save, "a.json")', 'os.path.join(args.data, "b.json")', False),
        ('os.path.join(args.save, "a.json")', "os.path.join(args.data, name)", True),
        ("self.out", "cfg.out", True),
        ("self.out", "cfg.log", False),
        ('opts["vocab"]', 'cfg["vocab"]', True),
        ("opts[key]", "cfg[key]", False),
        ('f"{__dp2ddp_in_0__}.npy"', 'f"{__dp2ddp_in_1__}.npy"', True),
        ('f"{__dp2ddp_in_0__}.npy"', 'f"{__dp2ddp_in_1__}.pkl"', False),
        ("cache_file(a)", "cache_file(a)", False),  # one text: matched, not "maybe"
    ],
)
def test_may_name_same(write: str, read: str, expected: bool) -> None:
    assert may_name_same(write, read) is expected


@pytest.mark.parametrize(
    ("written", "read", "expected"),
    [
        (("splits/train.npy", "splits/val.npy"), ("splits/train.npy",), "same"),
        (("splits/train.npy", "splits/val.npy"), ("splits/test.npy",), ""),
        (("*.feat.npy",), ("a.feat.npy",), "maybe"),
        (("*.feat.npy",), ("a.b.feat.npy",), ""),  # a wildcard stands for one name
        (("a.feat.npy",), ("*.npy",), ""),
        (("notes/0.txt",), ("*",), ""),  # a bare loop variable names nothing in particular
        (("*.npy",), ("*.npy",), ""),  # two wildcards: the loops' iterables decide
    ],
)
def test_spelled_same(written: tuple[str, ...], read: tuple[str, ...], expected: str) -> None:
    assert spelled_same(written, read) == expected


def test_names_within_and_apart() -> None:
    assert names_within('os.path.join(OUT, f"{i}.npy")', "OUT")
    assert names_within('Path(OUT) / "a.npy"', "OUT")
    assert not names_within('os.path.join(OUTPUT, "a.npy")', "OUT")
    assert apart('f"{x}.npy"', 'f"{y}.pkl"')
    assert not apart('f"{x}.npy"', "path")
