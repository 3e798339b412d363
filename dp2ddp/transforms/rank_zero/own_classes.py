"""The methods the classes of a program's modules define themselves: `console.write(line)`
of an object of one runs the program's own method (ProgramHints.class_methods), migrated in
its module, whose prints go to rank 0 there, as a class of the module's own does; one that
prints nothing is no output. No DP080 for such a call (rank_zero/guard_statements.py).

Not for a module the migration may leave as written (it calls torch.nn.parallel's
functions, subclasses DataParallel or already uses DDP: the detect pass's DP002, DP003;
ajbrock/BigGAN-PyTorch@9845943's utils.py, whose MyLogger.log writes on every rank): DP080
stays for its classes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: What such a module's text holds.
_MACHINERY = re.compile(
    r"\.parallel\b|parallel\.|DistributedDataParallel|WithCallback|DataParallel\)\s*:"
)


def class_methods(modules: Iterable[tuple[str, str, Iterable[str]]]) -> set[str]:
    """ "module.Class.method" of each module `(dotted name, text, its classes' own methods
    so named)` but those the migration may leave as written."""
    return {
        method
        for name, text, methods in modules
        if name and not ("arallel" in text and _MACHINERY.search(text))
        for method in methods
    }
