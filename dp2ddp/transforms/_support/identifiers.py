"""Whether a file's text may hold an identifier, told without parsing it.

The project model and the passes skip a parse or a walk where the names they look for
cannot occur. Python reads identifiers NFKC-normalised (`ｉmport_module` is import_module),
so a plain substring test is exact only for ASCII text; other text is searched normalised.
"""

from __future__ import annotations

import unicodedata


def mentions(text: str, *words: str) -> bool:
    """Some identifier of `text` may be one of `words` (a substring test: it may also be in
    a comment or a longer name; it is never missed)."""
    if any(word in text for word in words):
        return True
    if text.isascii():
        return False
    normal = unicodedata.normalize("NFKC", text)
    return any(word in normal for word in words)
