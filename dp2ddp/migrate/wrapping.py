"""Wrap the lines a migration wrote to the project's width, the way black wraps them.

Used by migrate/tidy.py: see its docstring. A split that does not give the same syntax
tree is never made.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from dp2ddp.transforms._support.ast_nodes import parse_python

#: black's, ruff's and isort's default line length: the width when the project sets none.
DEFAULT_WIDTH = 88
_INDENT = "    "


def wrap_long_lines(source: str, code: str, width: int = DEFAULT_WIDTH) -> str:
    """Split the lines dp2ddp wrote that are longer than `width`."""
    limit = width
    original = set(source.splitlines())
    lines = code.splitlines(keepends=True)
    long = [
        i
        for i, line in enumerate(lines)
        if len(line.rstrip("\r\n")) > limit and line.rstrip("\r\n") not in original
    ]
    if not long:
        return code
    try:
        reference = ast.dump(parse_python(code))  # tidy's own parse of the code
    except SyntaxError:
        return code
    inside = _continuation_lines(code)
    floor = len(lines)
    for index in reversed(long):
        if index >= floor:
            continue  # part of a statement already re-wrapped whole
        start, end = index, index
        while start + 1 in inside and start > 0:
            start -= 1
        while end + 2 in inside and end + 1 < len(lines):
            end += 1
        text = lines[index].rstrip("\r\n")
        newline = lines[index][len(text) :]
        if end > start:
            # A statement over several lines (a call that already spanned lines, edited):
            # joined and split again as a whole, as black would, never one line of it.
            split = _rewrap_statement(
                [line.rstrip("\r\n") for line in lines[start : end + 1]], limit
            )
        else:
            split = _split(text, limit, index + 1 in inside)
        if split is None:
            continue
        # between the parts a line break as the file writes them, also on a last line with
        # none (round 35, thtang/CheXNet-with-localization@1d4cd93: the parts were joined
        # by nothing, one line of tabs); after the last, the line's own ending
        between = newline or _line_break(lines)
        parts = [part + between for part in split[:-1]] + [split[-1] + newline]
        trial = [*lines[:start], *parts, *lines[end + 1 :]]
        try:
            same = ast.dump(ast.parse("".join(trial))) == reference
        except SyntaxError:
            same = False
        if same:
            lines = trial
            floor = start
    return "".join(lines)


def _line_break(lines: list[str]) -> str:
    """The line break the file's lines end with ("\n" where none does)."""
    for line in lines:
        body = line.rstrip("\r\n")
        if len(body) < len(line):
            return line[len(body) :]
    return "\n"


def _rewrap_statement(parts: list[str], limit: int) -> list[str] | None:
    """The physical lines of one statement joined into one line, then split to `limit`
    (None if it holds a comment or a backslash, which a join would lose or break)."""
    if any(part.rstrip().endswith("\\") for part in parts):
        return None
    joined = parts[0].rstrip()
    for part in parts[1:]:
        piece = part.strip()
        if joined.endswith(tuple(_OPEN)) or piece.startswith(tuple(_CLOSE)):
            joined += piece
        else:
            joined += " " + piece
    scan = _scan(joined)
    if scan is None or scan.comment is not None or scan.unbalanced:
        return None
    magic = re.search(r",\s*[)\]}]", joined) is not None  # black keeps such a call exploded
    if len(joined) <= limit and not magic:
        return [joined]
    return _split(joined, limit, False)


def _continuation_lines(code: str) -> set[int]:
    """Numbers of the lines that start inside brackets (or after a backslash)."""
    import io
    import tokenize

    inside: set[int] = set()
    depth = 0
    row = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.start[0] != row:
                for line in range(row + 1, token.start[0] + 1):
                    if depth > 0:
                        inside.add(line)
                row = token.end[0]
            if token.type == tokenize.OP and token.string in "([{":
                depth += 1
            elif token.type == tokenize.OP and token.string in ")]}":
                depth -= 1
            row = max(row, token.end[0])
    except (tokenize.TokenError, SyntaxError):
        return inside
    return inside


@dataclass(frozen=True)
class _Scan:
    """Where a line's brackets, depth-0 commas, comment and ` if `/` else ` are."""

    pairs: dict[int, int]  # closing bracket -> its opening bracket (brackets of this line)
    commas: list[int]  # commas outside every bracket opened on this line
    comment: int | None
    unbalanced: bool


_OPEN, _CLOSE = "([{", ")]}"


def _scan(text: str) -> _Scan | None:
    pairs: dict[int, int] = {}
    stack: list[int] = []
    commas: list[int] = []
    unbalanced = False
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "#":
            return _Scan(pairs, commas, i, unbalanced or bool(stack))
        if ch in "\"'":
            end = _string_end(text, i)
            if end is None:
                return None
            i = end
            continue
        if ch in _OPEN:
            stack.append(i)
        elif ch in _CLOSE:
            if stack:
                pairs[i] = stack.pop()
            else:
                unbalanced = True
        elif ch == "," and not stack:
            commas.append(i)
        i += 1
    return _Scan(pairs, commas, None, unbalanced or bool(stack))


def _string_end(text: str, start: int) -> int | None:
    quote = text[start]
    triple = text[start : start + 3] == quote * 3
    token = quote * 3 if triple else quote
    i = start + len(token)
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text.startswith(token, i):
            return i + len(token)
        i += 1
    return None


def _indent_of(text: str) -> str:
    return text[: len(text) - len(text.lstrip())]


def _split(text: str, limit: int, continuation: bool) -> list[str] | None:
    """`text` split into lines of at most `limit` characters, or None."""
    scan = _scan(text)
    if scan is None:
        return None
    if scan.comment is not None:
        return _split_commented(text, scan.comment, limit, continuation)
    if continuation:
        # A line inside brackets that is one conditional expression or one string (a
        # message indented under a new `if ddp_is_main():`): black's split of the first,
        # the second cut at spaces into implicitly concatenated pieces (the same string).
        for candidate in (_split_inner_conditional(text), _split_string(text, limit)):
            if candidate is not None and all(len(line) <= limit for line in candidate):
                return candidate
        # A line inside brackets: after its commas, else (one long argument, as an
        # inserted `batch_sampler=DdpBatchShard(...),`) black's right-hand split of it.
        split = _split_at_commas(text, limit)
        if split is None and not scan.unbalanced:
            candidate = _split_last_bracket(text, limit)
            if candidate is not None and all(len(line) <= limit for line in candidate):
                return candidate
        return split
    if scan.unbalanced:
        return None
    if text.startswith("from ") and " import " in text and "(" not in text:
        head, _, names = text.partition(" import ")
        members = [name.strip() for name in names.split(",")]
        return [f"{head} import (", *(f"{_INDENT}{name}," for name in members), ")"]
    for candidate in (
        _split_conditional(text, limit),
        _split_last_bracket(text, limit),
        _split_widest_bracket(text, limit),
        _split_recursive(text, limit),
    ):
        if candidate is not None and all(len(line) <= limit for line in candidate):
            return candidate
    return None


def _split_commented(text: str, at: int, limit: int, continuation: bool) -> list[str] | None:
    """`code  # comment`: the code split as black splits it, the comment after its last
    line (where black keeps a trailing comment)."""
    code, comment = text[:at].rstrip(), text[at:]
    if not code.strip():
        return None  # a comment line: dp2ddp's own are written short
    split = _split(code, limit, continuation)
    if split is None or _scan(split[-1]) is None:
        return None
    return [*split[:-1], f"{split[-1]}  {comment}"]


def _split_inner_conditional(text: str) -> list[str] | None:
    """`A if c else B` alone on a line inside brackets -> three lines, as black splits it."""
    stripped = text.strip()
    try:
        expr = ast.parse(stripped, mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(expr, ast.IfExp):
        return None
    pieces = [
        ast.get_source_segment(stripped, expr.body),
        ast.get_source_segment(stripped, expr.test),
        ast.get_source_segment(stripped, expr.orelse),
    ]
    if any(p is None for p in pieces):
        return None
    indent = _indent_of(text)
    return [f"{indent}{pieces[0]}", f"{indent}if {pieces[1]}", f"{indent}else {pieces[2]}"]


_STRING = re.compile(
    r"""(?P<prefix>[rRbBuUfF]{0,2})(?P<quote>["'])(?P<body>.*)(?P=quote)(?P<tail>,?)"""
)


def _split_string(text: str, limit: int) -> list[str] | None:
    """A string literal alone on a line inside brackets, cut after spaces into pieces that
    fit (implicit concatenation: the same string; in an f-string never inside braces)."""
    indent = _indent_of(text)
    match = _STRING.fullmatch(text.strip())
    if match is None:
        return None
    prefix, quote, body, tail = (match.group(k) for k in ("prefix", "quote", "body", "tail"))
    if quote in body.replace("\\\\", "").replace("\\" + quote, ""):
        return None  # several literals on the line already
    room = limit - len(indent) - len(prefix) - 2
    pieces: list[str] = []
    rest = body
    while len(rest) > room:
        cut = _string_cut(rest, room, "f" in prefix.lower())
        if cut is None:
            return None
        pieces.append(rest[:cut])
        rest = rest[cut:]
    pieces.append(rest)
    if len(pieces) < 2:
        return None
    # A piece of an f-string without braces is a plain string (ruff's F541 otherwise).
    lines = [
        f"{indent}{_plain(prefix) if not set(piece) & set('{}') else prefix}{quote}{piece}{quote}"
        for piece in pieces
    ]
    lines[-1] += tail
    return lines


def _plain(prefix: str) -> str:
    return prefix.replace("f", "").replace("F", "")


def _string_cut(body: str, room: int, formatted: bool) -> int | None:
    """The end of the longest first piece of `body` (after a space, outside braces and
    escapes) that fits in `room` characters."""
    depth, best, i = 0, None, 0
    while i < len(body) and i < room:
        ch = body[i]
        if ch == "\\":
            i += 2
            continue
        if formatted and ch in "{}":
            if body[i : i + 2] in ("{{", "}}"):
                i += 2
                continue
            depth += 1 if ch == "{" else -1
        elif ch == " " and depth == 0 and i + 1 <= room:
            best = i + 1
        i += 1
    return best if best is not None and best < len(body) else None


def _split_widest_bracket(text: str, limit: int) -> list[str] | None:
    """`with (A if c else B) as w:` -> `with (`, its contents, `) as w:`: the widest pair."""
    scan = _scan(text)
    if scan is None or not scan.pairs:
        return None
    close, opening = max(scan.pairs.items(), key=lambda pair: pair[0] - pair[1])
    head, body = text[: opening + 1], text[opening + 1 : close].strip()
    indent = _indent_of(text)
    inner = indent + _INDENT
    tail = indent + text[close:].strip()
    if not body or len(head) > limit:
        return None
    if len(inner) + len(body) <= limit:
        return [head, inner + body, tail]
    try:
        expr = ast.parse(body, mode="eval").body
    except SyntaxError:
        expr = None  # arguments: `x, key=value` is no expression
    if not isinstance(expr, ast.IfExp):
        # one element per line (`return DataLoader(a, b=..., c=...), other`)
        parts = _elements(body)
        if parts is None or len(parts) < 2:
            return None
        return [head, *(f"{inner}{part}," for part in parts), tail]
    pieces = [
        ast.get_source_segment(body, expr.body),
        "if " + (ast.get_source_segment(body, expr.test) or ""),
        "else " + (ast.get_source_segment(body, expr.orelse) or ""),
    ]
    if pieces[0] is None:
        return None
    return [head, *(inner + str(piece) for piece in pieces), tail]


def _split_last_bracket(text: str, limit: int) -> list[str] | None:
    """black's right-hand split: `head(` / the contents / `)tail`, nested as needed."""
    content = text.rstrip()
    suffix = ""
    if content.endswith((":", ",")):
        content, suffix = content[:-1], content[-1]
    scan = _scan(content)
    if scan is None or scan.unbalanced or not content or content[-1] not in _CLOSE:
        return None
    close = len(content) - 1
    opening = scan.pairs.get(close)
    if opening is None:
        return None
    head, body = content[: opening + 1], content[opening + 1 : close].strip()
    if not body or len(head) > limit:
        return None
    indent = _indent_of(text)
    inner = indent + _INDENT
    tail = content[close:] + suffix
    if len(inner) + len(body) <= limit and not body.endswith(","):
        return [head, inner + body, indent + tail]
    pieces = _split_string(inner + body, limit)
    if pieces is not None:  # one long string: `print(f"...")`
        return [head, *pieces, indent + tail]
    if _comprehension_clauses(body) is not None:
        return None  # no element list: `_split_recursive` puts each clause on a line
    parts = _elements(body)
    if parts is None:
        return None
    lines = [head]
    for part in parts:
        line = inner + part + ","
        if len(line) > limit:
            nested = _split_conditional(line, limit) or _split_last_bracket(line, limit)
            if nested is None:
                return None
            lines += nested
        else:
            lines.append(line)
    return [*lines, indent + tail]


def _elements(body: str) -> list[str] | None:
    scan = _scan(body)
    if scan is None or scan.unbalanced:
        return None
    cuts = [-1, *scan.commas, len(body)]
    parts = [body[a + 1 : b].strip() for a, b in zip(cuts, cuts[1:], strict=False)]
    return [p for p in parts if p] or None


def _split_conditional(text: str, limit: int) -> list[str] | None:
    """`target = A if c else B` (or `return ...`) -> `target = (`, the parts, `)`."""
    indent = _indent_of(text)
    stripped = text.strip()
    close = ")"
    keyword = re.match(r"[A-Za-z_]\w*=(?!=)", stripped)
    if stripped.endswith(","):  # an argument: `(A if c else B),`, `name=(A if c else B),`
        lead = keyword.group(0) if keyword else ""
        head, rhs, close = indent + lead + "(", stripped[len(lead) : -1], "),"
    elif stripped.startswith("return "):
        head, rhs = indent + "return (", stripped[len("return ") :]
    else:
        try:
            node = ast.parse(stripped).body[0]
        except (SyntaxError, IndexError):
            return None
        if not isinstance(node, ast.Assign | ast.AnnAssign) or node.value is None:
            return None
        if not isinstance(node.value, ast.IfExp):
            return None
        cut = stripped.find(" = ")
        if cut < 0:
            return None
        head, rhs = indent + stripped[: cut + 3] + "(", stripped[cut + 3 :]
    try:
        expr = ast.parse(rhs, mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(expr, ast.IfExp):
        return None
    inner = indent + _INDENT
    if len(inner) + len(rhs) <= limit:
        return [head, inner + rhs, indent + close]
    pieces = [
        ast.get_source_segment(rhs, expr.body),
        "if " + (ast.get_source_segment(rhs, expr.test) or ""),
        "else " + (ast.get_source_segment(rhs, expr.orelse) or ""),
    ]
    if pieces[0] is None:
        return None
    lines = [head]
    for piece in pieces:
        line = inner + str(piece)
        if len(line) > limit:
            nested = _split_last_bracket(line, limit)
            if nested is None:
                return None
            lines += nested
        else:
            lines.append(line)
    return [*lines, indent + close]


def _split_at_commas(text: str, limit: int) -> list[str] | None:
    """A line inside brackets: break it after commas, each new line at its indentation."""
    indent = _indent_of(text)
    lines: list[str] = []
    current = text
    while len(current) > limit:
        scan = _scan(current)
        if scan is None or scan.comment is not None:
            return None
        usable = [c for c in scan.commas if len(indent) < c and c + 1 <= limit]
        if not usable:
            return None
        cut = usable[-1]
        lines.append(current[: cut + 1].rstrip())
        current = indent + current[cut + 1 :].lstrip()
    lines.append(current)
    return lines


#: black's delimiter priorities (linegen/brackets.py): a body that does not fit is split
#: before every operator of the highest priority present outside its brackets.
_PRIORITIES = {
    "or": 14, "and": 14,
    "<": 10, ">": 10, "==": 10, "!=": 10, "<=": 10, ">=": 10, "in": 10, "is": 10,
    "|": 9, "^": 8, "&": 7, "<<": 6, ">>": 6, "+": 5, "-": 5,
    "*": 4, "/": 4, "//": 4, "%": 4, "@": 4, "**": 1,
}  # fmt: skip
_NOT_OPERANDS = frozenset(
    {"and", "or", "not", "in", "is", "if", "else", "lambda", "await", "return", "yield"}
)


def _split_recursive(text: str, limit: int) -> list[str] | None:
    """black's right-hand split, recursing where one split is not enough.

    The last bracket pair that holds something is split (`(...).mean().backward()`: the
    empty trailers stay on the closing line); an assignment or `return` whose last bracket
    leaves a head too long is wrapped in parentheses instead (`x = (`, its value, `)`).
    Each line of the body that is still too long is split again: after its commas, else
    before its operators of the highest priority (black's delimiter split), else at its own
    last bracket. None when some piece cannot be made to fit.
    """
    if len(text) <= limit:
        return [text]
    content = text.rstrip()
    suffix = ""
    if content.endswith((":", ",")):
        content, suffix = content[:-1], content[-1]
    scan = _scan(content)
    if scan is None or scan.unbalanced or scan.comment is not None:
        return None
    indent = _indent_of(text)
    attempts: list[tuple[str, str, str]] = []
    opening = _last_full_bracket(content, scan)
    if opening is not None:
        close = _closing(scan, opening)
        attempts.append((content[: opening + 1], content[opening + 1 : close], content[close:]))
    value_at = _value_offset(content.strip())
    if value_at is not None:
        value = content.strip()[value_at:]
        wrapped = (indent + content.strip()[:value_at] + "(", value, ")")
        if _delimiters(value)[1] > 1 or not attempts or len(attempts[0][0]) > limit:
            attempts.insert(0, wrapped)
        else:
            attempts.append(wrapped)
    for head, body, tail in attempts:
        body = body.strip()
        if not body or len(head) > limit:
            continue
        lines = _split_body(indent + _INDENT, body, limit)
        if lines is not None:
            return [head, *lines, indent + tail.lstrip() + suffix]
    return None


def _value_offset(statement: str) -> int | None:
    """Where the value of `target = value` (also annotated or augmented) or `return value`
    starts in `statement`, one line of code."""
    try:
        node = ast.parse(statement).body[0]
    except (SyntaxError, IndexError):
        return None
    if not isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.Return):
        return None
    if node.value is None or not statement.isascii():
        return None  # ast's offsets count bytes
    return node.value.col_offset


def _closing(scan: _Scan, opening: int) -> int:
    return next(close for close, start in scan.pairs.items() if start == opening)


def _last_full_bracket(content: str, scan: _Scan) -> int | None:
    """The opening bracket of the last pair with contents, passing over empty trailing
    calls and the names before them (`).mean().backward()`); None if the line does not end
    in brackets."""
    close = len(content) - 1
    while close >= 0 and content[close] in _CLOSE:
        opening = scan.pairs.get(close)
        if opening is None:
            return None
        if content[opening + 1 : close].strip():
            return opening
        before = content[:opening].rstrip()
        name = re.search(r"\.\s*[A-Za-z_]\w*$", before)
        if name is None:
            return None
        close = len(before[: name.start()].rstrip()) - 1
    return None


def _delimiters(body: str) -> tuple[list[int], int]:
    """Where `body` may be split before an operator outside its brackets (black's
    delimiters of the highest priority present), and how many there are."""
    import io
    import tokenize

    found: list[tuple[int, int]] = []  # (priority, offset)
    depth = 0
    previous: tokenize.TokenInfo | None = None
    starts = [0]
    for line in body.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(body).readline))
    except (tokenize.TokenError, SyntaxError):
        return [], 0
    for token in tokens:
        if token.type in (tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER, tokenize.COMMENT):
            continue
        text = token.string
        if token.type == tokenize.OP and text in _OPEN:
            depth += 1
        elif token.type == tokenize.OP and text in _CLOSE:
            depth -= 1
        elif depth == 0 and text in _PRIORITIES and _after_operand(previous):
            offset = starts[token.start[0] - 1] + token.start[1]
            if text in ("in", "is") and previous is not None and previous.string == "not":
                offset = starts[previous.start[0] - 1] + previous.start[1]
            found.append((_PRIORITIES[text], offset))
        elif depth == 0 and text == "lambda":
            break  # a lambda's body runs to the end: black never splits inside it
        previous = token
    if not found:
        return [], 0
    best = max(priority for priority, _ in found)
    offsets = [offset for priority, offset in found if priority == best]
    return offsets, len(offsets)


def _after_operand(token: object) -> bool:
    """A binary operator follows an operand (a name, number, string or closing bracket)."""
    import tokenize

    if not isinstance(token, tokenize.TokenInfo):
        return False
    if token.type == tokenize.OP:
        return token.string in _CLOSE
    if token.type == tokenize.NAME:
        return token.string not in _NOT_OPERANDS
    ends = {tokenize.NUMBER, tokenize.STRING, getattr(tokenize, "FSTRING_END", tokenize.STRING)}
    return token.type in ends


def _split_body(inner: str, body: str, limit: int) -> list[str] | None:
    """The contents of a bracket pair on lines at `inner` indentation, each within `limit`."""
    if len(inner) + len(body) <= limit:
        return [inner + body]
    clauses = _comprehension_clauses(body)
    if clauses is not None:  # black: the element, then each `for` / `if` on a line
        element, *rest = clauses
        head = _split_recursive(inner + element, limit)
        if head is None or any(len(inner + clause) > limit for clause in rest):
            return None
        return [*head, *(inner + clause for clause in rest)]
    parts = _elements(body)
    if parts is not None and len(parts) > 1 or body.rstrip().endswith(","):
        lines: list[str] = []
        for part in parts or []:
            piece = _split_recursive(inner + part + ",", limit)
            if piece is None:
                return None
            lines += piece
        return lines
    offsets, _ = _delimiters(body)
    if offsets:
        cuts = [0, *offsets, len(body)]
        lines = []
        for start, end in zip(cuts, cuts[1:], strict=False):
            piece = _split_recursive(inner + body[start:end].strip(), limit)
            if piece is None:
                return None
            lines += piece
        return lines
    return _split_recursive(inner + body, limit)


def _comprehension_clauses(body: str) -> list[str] | None:
    """The body of a comprehension's brackets cut before each of its `for` and `if`
    clauses (`x: f(x)`, `for x in xs`, `if x`); None when `body` is no comprehension."""
    import io
    import tokenize

    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(body).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    if "\n" in body.strip():
        return None
    cuts: list[int] = []
    depth = 0
    for token in tokens:
        if token.type == tokenize.OP and token.string in _OPEN:
            depth += 1
        elif token.type == tokenize.OP and token.string in _CLOSE:
            depth -= 1
        elif depth == 0 and token.type == tokenize.NAME:
            if token.string == "for" or (token.string == "if" and cuts):
                cut = token.start[1]
                if token.string == "for" and body[:cut].rstrip().endswith("async"):
                    cut = body[:cut].rstrip().rfind("async")
                cuts.append(cut)
    if not cuts:
        return None
    for opening, closing in ("[]", "{}"):
        try:
            tree = ast.parse(f"{opening}{body}{closing}", mode="eval").body
        except SyntaxError:
            continue
        if isinstance(tree, ast.ListComp | ast.SetComp | ast.DictComp):
            break
    else:
        return None
    edges = [0, *cuts, len(body)]
    return [body[a:b].strip() for a, b in zip(edges, edges[1:], strict=False) if body[a:b].strip()]
