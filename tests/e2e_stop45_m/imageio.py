"""A stand-in for imageio (not installed in the test environment), enough for the fixture
rank_zero_s70_lead_gif_writer_after_training: `imwrite(path, array)` and `imread(path)` keep
the array as a pickle; `get_writer(path, mode=...)` is a context manager whose
`append_data(frame)` collects frames and whose exit writes the file. Every writer appends a
line to `writers.log` beside the file, so a run can tell how many processes wrote it.
"""

from __future__ import annotations

import os
import pickle
from typing import Any


def imwrite(path: str, array: Any, **_: Any) -> None:
    with open(path, "wb") as handle:
        pickle.dump(array, handle)


def imread(path: str, **_: Any) -> Any:
    with open(path, "rb") as handle:
        return pickle.load(handle)


class _Writer:
    def __init__(self, path: str) -> None:
        self.path, self.frames = path, []  # type: ignore[var-annotated]

    def append_data(self, frame: Any) -> None:
        self.frames.append(frame)

    def __enter__(self) -> _Writer:
        return self

    def __exit__(self, *_: object) -> None:
        with open(self.path, "wb") as handle:
            pickle.dump(self.frames, handle)
        folder = os.path.dirname(os.path.abspath(self.path))
        with open(os.path.join(folder, "writers.log"), "a") as log:
            log.write(f"{os.environ.get('RANK', '-')} {os.path.basename(self.path)}\n")


def get_writer(path: str, mode: str = "?", **_: Any) -> _Writer:
    return _Writer(path)
