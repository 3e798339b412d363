"""Stand-in for torchvision.transforms in the round classes' launch: Compose runs each
transform of its list on the sample in turn, as torchvision's does (draws nothing itself)."""

from collections.abc import Callable
from typing import Any


class Compose:
    def __init__(self, transforms: list[Callable[[Any], Any]]) -> None:
        self.transforms = transforms

    def __call__(self, x: Any) -> Any:
        for t in self.transforms:
            x = t(x)
        return x


class Lambda:
    def __init__(self, lambd: Callable[[Any], Any]) -> None:
        self.lambd = lambd

    def __call__(self, x: Any) -> Any:
        return self.lambd(x)
