"""A stand-in for h5py (not installed in the test environment), enough for the fixture
rank_zero_hdf_cache_built_by_every_rank: `File(path, mode)` as a context manager with
`attrs`, `create_dataset(name, data=...)` and `f[name][()]`, kept as a pickle. Every open
for writing appends `<mode> <basename>` to the file named by H5PY_STANDIN_LOG, so the test
can count how many processes wrote the program's file (the scratch files have other names).
"""

from __future__ import annotations

import os
import pickle
from typing import Any


class File(dict):  # type: ignore[type-arg]
    def __init__(self, name: str, mode: str = "r", **_: Any) -> None:
        super().__init__()
        self.name, self.mode, self.attrs = name, mode, {}
        if mode == "r":
            with open(name, "rb") as f:
                self.attrs, data = pickle.load(f)
            self.update(data)
            return
        log = os.environ.get("H5PY_STANDIN_LOG")
        if log:
            with open(log, "a") as f:
                f.write(f"{mode} {os.path.basename(name)}\n")

    def create_dataset(self, name: str, data: Any = None, **_: Any) -> Any:
        self[name] = data
        return data

    def close(self) -> None:
        if self.mode != "r":
            with open(self.name, "wb") as f:
                pickle.dump((self.attrs, dict(self)), f)

    def __enter__(self) -> File:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
