"""A model class whose layers come from a base class whose `__init__` is not read here
(DP041, with partial_forward.py).

kamalkraj/BERT-NER@e5be564 (round 37): `class Ner(BertForTokenClassification)` defines only
forward(), which runs `self.bert(...)[0]` and `self.classifier`: the layers are registered
by the library's `__init__`, and `self.bert`'s pooler, whose output forward() drops, gets no
gradient. With no `__init__` of its own the class was not judged at all: no DP041, no
find_unused_parameters, and DDP failed at step 2 on both ranks. Such a class is judged by
what cannot be read: which of the inherited layers forward() leaves without a gradient is
not known, so the wrap gets find_unused_parameters=True, said. A base that is the program's
own class is read where it is one with a forward() (`partial_models` asks by the marker).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

#: What `needs` of a partial use holds for an inherited base: the claim counts only where
#: the base is no judged class of the program (grad_paths.layer_judged).
NOT_JUDGED = "!"


def inherited_base(
    node: ast.ClassDef, resolve: Callable[[ast.expr], tuple[str, bool] | None]
) -> tuple[str, str] | None:
    """(how forward() uses what it inherits, the marked base) for a class that defines
    forward() and no `__init__`, with a base other than torch's (nn.Module) and `object`;
    None otherwise."""
    methods = {n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if "forward" not in methods or "__init__" in methods:
        return None
    for base in node.bases:
        found = resolve(base)
        if found is None or found[0].startswith("torch.") or found[0] in ("object", "Generic"):
            continue
        return (
            f"runs layers it inherits from {found[0]}, whose __init__ is not read here: "
            "which of them get no gradient in a step is not known",
            NOT_JUDGED + found[0],
        )
    return None
