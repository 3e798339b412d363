"""tf.summary's writer, `as_default()` and `scalar` (a stand-in: one text line a scalar)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

_DEFAULT: list[_FileWriter] = []


class _FileWriter:
    def __init__(self, logdir: str, filename_suffix: str | None) -> None:
        os.makedirs(logdir, exist_ok=True)
        name = f"events.out.tfevents.{os.getpid()}{filename_suffix or ''}"
        self.path = os.path.join(logdir, name)

    @contextlib.contextmanager
    def as_default(self) -> Iterator[_FileWriter]:
        _DEFAULT.append(self)
        try:
            yield self
        finally:
            _DEFAULT.pop()

    def flush(self) -> None:
        return None


def create_file_writer(
    logdir: str,
    max_queue: int | None = None,
    flush_millis: int | None = None,
    filename_suffix: str | None = None,
) -> _FileWriter:
    return _FileWriter(logdir, filename_suffix)


def scalar(name: str, data: float, step: int | None = None, description: str | None = None) -> bool:
    if not _DEFAULT:
        return False
    with open(_DEFAULT[-1].path, "a") as events:
        events.write(f"{name} {step} {data:.4f}\n")
    return True
