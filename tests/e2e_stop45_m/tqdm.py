"""A stand-in for tqdm in the shared launch (stop 54 v2): the test environment has no tqdm.
`tqdm(iterable, ...)` yields the iterable's items as it is; the bar is not drawn. Its counter
`n` advances by `update()` unless the bar is disabled, as tqdm's does (stop 78).

Stop 57 v3-B: it walks its iterable as tqdm does (`tqdm/std.py`, `__iter__`), through one line
when disabled and another when not, and its code is compiled under the installed packages'
folder, where the real tqdm's frames are: a helper keyed by the call path (ddp_call_key) meets
the same frames on the ranks the migration disables the bar on as with tqdm itself."""

import os
import sysconfig
from typing import Any

_SOURCE = """
class tqdm:  # noqa: N801 - tqdm's own spelling
    def __init__(self, iterable=None, *args, disable=False, **kwargs):
        self.iterable = iterable
        self.disable = disable
        self.n = 0

    def update(self, n=1):
        if self.disable:
            return  # as tqdm's: a disabled bar counts nothing
        self.n += n

    def set_description(self, *args, **kwargs):
        pass

    def __iter__(self):
        iterable = self.iterable
        if self.disable:
            yield from iterable
            return
        for obj in iterable:
            yield obj

    def __len__(self):
        return len(self.iterable)

    def set_postfix_str(self, *args, **kwargs):
        pass

    def close(self):
        pass
"""
_INSTALLED = os.path.join(sysconfig.get_paths()["purelib"], "tqdm", "std.py")
_NAMESPACE: dict[str, Any] = {}
exec(compile(_SOURCE, _INSTALLED, "exec"), _NAMESPACE)
tqdm = _NAMESPACE["tqdm"]
