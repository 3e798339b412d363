"""A stand-in for tqdm in the shared launch (stop 54 v2): the test environment has no tqdm.
`tqdm(iterable, ...)` yields the iterable's items as it is; the bar is not drawn."""

from collections.abc import Iterator
from typing import Any


class tqdm:  # noqa: N801 - tqdm's own spelling
    def __init__(self, iterable: Any = None, *args: Any, **kwargs: Any) -> None:
        self.iterable = iterable

    def __iter__(self) -> Iterator[Any]:
        return iter(self.iterable)

    def __len__(self) -> int:
        return len(self.iterable)

    def set_postfix_str(self, *args: Any, **kwargs: Any) -> None:
        pass

    def close(self) -> None:
        pass
