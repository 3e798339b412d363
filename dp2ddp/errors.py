"""Input errors: reported as one `path:line:col: message` line, never a traceback."""

from __future__ import annotations


def error_line(where: str, message: str, line: int = 1, col: int = 1) -> str:
    """The one shape of every error dp2ddp prints: `path:line:col: error: message`."""
    return f"{where}:{line}:{col}: error: {message}"


def one_line(text: str) -> str:
    """`text` with every run of whitespace (newlines included) as one space."""
    return " ".join(text.split())


class InputError(Exception):
    """A file that cannot be read, decoded or parsed. The file is left untouched."""

    def __init__(self, message: str, line: int = 1, col: int = 1, path: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col
        self.path = path

    def with_path(self, path: str) -> InputError:
        return InputError(self.message, self.line, self.col, path)

    def format(self, path: str | None = None) -> str:
        where = path or self.path or "<stdin>"
        return error_line(where, self.message, self.line, self.col)
