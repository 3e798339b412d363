"""The warning codes. Each transform reports with one of these; docs/warnings.md explains them."""

from __future__ import annotations

from typing import Final

from dp2ddp.codes.dp001_to_dp049 import FIRST
from dp2ddp.codes.dp050_to_dp099 import LATER
from dp2ddp.codes.dp065_to_dp099 import LATER_HIGH
from dp2ddp.codes.dp100_to_dp124 import LATEST
from dp2ddp.codes.dp125_to_dp149 import LATEST_HIGHEST
from dp2ddp.codes.dp150_on import NEWEST

#: code -> (short title, what the user should do); the texts live in this package's modules.
CODES: Final[dict[str, tuple[str, str]]] = {
    **FIRST,
    **LATER,
    **LATER_HIGH,
    **LATEST,
    **LATEST_HIGHEST,
    **NEWEST,
}


#: Codes saying a DataParallel use was left as it is: a file unchanged with one of these still
#: needs work, so `migrate --check` fails on it (the pre-commit hook catches it).
UNCONVERTED_DATAPARALLEL: Final = frozenset({"DP002", "DP016", "DP038", "DP056"})


def title(code: str) -> str:
    return CODES[code][0]


def explanation(code: str) -> str:
    return CODES[code][1]
