"""Render the jinja2 templates in `templates/` and parse them back into libcst nodes.

Inserted boilerplate is never pasted in as text: it is rendered, parsed, and spliced
into the tree, so it is always valid Python and formatted like the rest of the output.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
import libcst as cst


def templates_dir() -> Path:
    """The templates: inside the installed wheel, else the source tree's `templates/`."""
    packaged = resources.files("dp2ddp") / "templates"
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parent.parent / "templates"


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


def render(name: str, **context: Any) -> str:
    """Render template `name` (e.g. "ddp_header.py.j2") to text."""
    return _environment().get_template(name).render(**context)


Statement = cst.SimpleStatementLine | cst.BaseCompoundStatement


def render_statements(name: str, **context: Any) -> list[Statement]:
    """Render a Python template and parse it into module-level statements."""
    module = cst.parse_module(render(name, **context))
    body = list(module.body)
    if body and module.header:
        body[0] = body[0].with_changes(leading_lines=[*module.header, *body[0].leading_lines])
    return body


def render_expression(name: str, **context: Any) -> cst.BaseExpression:
    return cst.parse_expression(render(name, **context).strip())
