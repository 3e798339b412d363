"""Library models whose pooled output reads every parameter (DP041, with dropped_outputs.py).

A library model's forward() is not read, so a caller that keeps only part of what it returns
(`outputs = self.bert(...)`, then only `outputs[1]`) was said to leave the layers feeding the
rest without a gradient (dropped_outputs.unread_callee). For the BERT family that is known
without reading: element 0 is the last layer's hidden states, element 1 the pooled output,
`pooler(hidden_states[:, 0])`, computed from them; so every parameter (embeddings, every
layer, the pooler) feeds element 1, and a caller reading it on every path leaves none
without a gradient (stop 72, round 24: lonePatient/Bert-Multi-Label-Text-Classification@
531ee2d's BertForMultiLable, `pooled_output = outputs[1]`; torch's own check at run time
found no unused parameter). Proved only for a model built with its pooler (no
`add_pooling_layer=` but True where it is built); keeping element 0 alone still starves
the pooler (said).
"""

from __future__ import annotations

import ast

from dp2ddp.transforms._support.ast_nodes import is_self_attribute
from dp2ddp.transforms.analysis.dropped_outputs import DroppedOutput

#: Model classes (last name) of these libraries whose element 1 is the pooled output.
_POOLED = frozenset(
    {"BertModel", "RobertaModel", "AlbertModel", "XLMRobertaModel", "CamembertModel"}
)
_LIBRARIES = frozenset({"transformers", "pytorch_pretrained_bert", "pytorch_transformers"})
_POOLED_AT = 1


def pooled_kept(dropped: DroppedOutput, init: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """`dropped` keeps, on every path, the pooled output of a library BERT-family model
    that `__init__` builds with its pooler: every parameter of it gets a gradient."""
    if not dropped.callees or not all(_pooled_class(c) for c in dropped.callees):
        return False
    if not all(_POOLED_AT in read for read in dropped.paths or (dropped.kept,)):
        return False
    if not init.args.args:
        return False
    me = init.args.args[0].arg
    built = False
    for node in ast.walk(init):
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
            continue
        if not any(
            is_self_attribute(t, me)
            and isinstance(t, ast.Attribute)
            and t.attr == dropped.attribute
            for t in node.targets
        ):
            continue
        built = True
        for keyword in node.value.keywords:
            if keyword.arg is None:
                return False  # `**kwargs`: may switch the pooler off
            if keyword.arg == "add_pooling_layer" and not (
                isinstance(keyword.value, ast.Constant) and keyword.value.value is True
            ):
                return False
    return built


def _pooled_class(qualified: str) -> bool:
    parts = qualified.split(".")
    return parts[0] in _LIBRARIES and parts[-1] in _POOLED
