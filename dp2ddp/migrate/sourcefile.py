"""Bytes <-> text for Python source files, keeping what a rewrite must not change.

A file is decoded the way Python itself decodes it (BOM, then the PEP 263 encoding cookie,
then UTF-8) and encoded back the same way. A file that uses CRLF line endings throughout is
handed to the codemod with LF endings and gets CRLF back on the way out, so inserted code
matches the file's convention (a file ending every line with a lone CR likewise); a file with
mixed endings is passed through as it is. A file
whose indentation Python reads but libcst does not is handed over re-indented, proved the
same program (migrate/reindent.py); its text as read is kept for a migration that changes
nothing.
"""

from __future__ import annotations

import codecs
import io
import tokenize
from dataclasses import dataclass

from dp2ddp.errors import InputError
from dp2ddp.migrate.reindent import reindented


@dataclass(frozen=True)
class SourceFile:
    """Decoded text of one file plus how to turn migrated text back into the file's bytes."""

    text: str
    #: Codec the file is written in; "utf-8-sig" means the file starts with a UTF-8 BOM.
    encoding: str = "utf-8"
    #: The file used CRLF everywhere: `text` holds LF endings, `encode` restores CRLF.
    crlf: bool = False
    #: The text as read when `text` is it re-indented for libcst (migrate/reindent.py), else
    #: "": a migration that changes nothing leaves the file as it was.
    original: str = ""
    #: The lines re-indented (DP110 names them).
    reindented: tuple[int, ...] = ()
    #: The file ended its lines with a lone CR everywhere (classic Mac OS), as Python reads
    #: it: `text` holds LF endings, `encode` restores CR. Handed over as it was, libcst
    #: dropped its last line end and the migration's new lines ended in LF (stop 44's fuzz).
    cr: bool = False

    @property
    def bom(self) -> bool:
        return self.encoding == "utf-8-sig"

    def encode(self, text: str) -> bytes:
        """Bytes of `text` in this file's encoding and line endings (InputError if impossible)."""
        if self.crlf:
            text = text.replace("\n", "\r\n")
        elif self.cr:
            text = text.replace("\n", "\r")
        try:
            data = text.encode(self.encoding)
        except UnicodeEncodeError as exc:
            line, col = _text_position(text, exc.start)
            raise InputError(
                f"cannot encode the migrated code as {self.encoding}: {exc.reason}", line, col
            ) from None
        if detect_encoding(data) != self.encoding:
            # The rewrite moved or hid the encoding cookie: writing would change the meaning
            # of every non-ASCII byte. Refuse rather than corrupt the file.
            raise InputError(f"the migrated code would no longer be read as {self.encoding}")
        return data


def detect_encoding(data: bytes) -> str:
    """The codec Python uses for `data` (BOM, encoding cookie, else UTF-8); InputError if bad."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # unknown codec, BOM/cookie conflict, invalid cookie line
        message = str(exc.msg if hasattr(exc, "msg") else exc)
        raise InputError(f"cannot decode: {message}", exc.lineno or 1, 1) from None
    return encoding


def decode(data: bytes) -> SourceFile:
    """Decode a source file's bytes. InputError (one line, with position) when not text."""
    nul = data.find(b"\0")
    if nul != -1:
        line, col = _byte_position(data, nul)
        raise InputError("binary file (contains NUL bytes), not Python source", line, col)
    encoding = detect_encoding(data)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line, col = _byte_position(data, exc.start)
        name = codecs.lookup(encoding).name
        raise InputError(f"cannot decode as {name}: {exc.reason}", line, col) from None
    crlf = "\r" in text and text.count("\r") == text.count("\r\n") == text.count("\n")
    cr = "\r" in text and "\n" not in text
    if crlf or cr:
        text = text.replace("\r\n" if crlf else "\r", "\n")
    fixed = reindented(text)
    if fixed is not None:
        return SourceFile(fixed.text, encoding, crlf, text, fixed.lines, cr)
    return SourceFile(text, encoding, crlf, cr=cr)


def _byte_position(data: bytes, offset: int) -> tuple[int, int]:
    line_start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, offset - line_start + 1


def _text_position(text: str, offset: int) -> tuple[int, int]:
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1
