"""`children_of(node)`, at home in dp2ddp/flow/children.py (the flow view below the passes
walks trees with it too); kept here so the passes' imports read as before."""

from __future__ import annotations

from dp2ddp.flow.children import (
    _VISITS,
    KIND,
    NODE,
    SCOPE_KINDS,
    SEQUENCE,
    Visit,
    children_of,
    visits,
)

__all__ = ["KIND", "NODE", "SCOPE_KINDS", "SEQUENCE", "_VISITS", "Visit", "children_of", "visits"]
