"""analysis/device_moves.py: the function summary (a program function returning its first
parameter moved) and the element-wise moves of a comprehension (stop 52, helper w6)."""

from __future__ import annotations

import ast

import libcst as cst

from dp2ddp.transforms.analysis.device_moves import (
    device_moves,
    moved,
    program_moves,
    unmoved_comprehension,
)

SUMMARY = """
import torch

def move_data_to_device(x, device):
    if "float" in str(x.dtype):
        x = torch.Tensor(x)
    elif "int" in str(x.dtype):
        x = torch.LongTensor(x)
    else:
        return x
    return x.to(device)

def to_cuda(x):
    return x.cuda() if torch.cuda.is_available() else x

def first_rows(x, device):
    return x[:4].to(device)

def other(x, y):
    return y.to("cpu")

def rebound(x):
    x = x * 2
    return x.float()

def nothing(x):
    print(x)

class Holder:
    def move(self, x):
        return x.cuda()
"""


def test_functions_returning_their_first_parameter_moved() -> None:
    found = device_moves(ast.parse(SUMMARY))
    assert program_moves([found]) == {"move_data_to_device", "to_cuda"}
    # a name another module of the program defines as no move is no move
    other = device_moves(ast.parse("def to_cuda(x):\n    return x[:4].cuda()\n"))
    assert program_moves([found, other]) == {"move_data_to_device"}


def _element(source: str) -> cst.BaseExpression:
    expression = cst.parse_expression(source)
    assert isinstance(expression, (cst.DictComp, cst.ListComp, cst.GeneratorExp))
    return expression.value if isinstance(expression, cst.DictComp) else expression.elt


def test_element_wise_moves() -> None:
    moves = frozenset({"move_data_to_device"})
    for source, name in (
        ("{k: v.to(device) for k, v in batch.items()}", "v"),
        ("(t.float().cuda() for t in batch)", "t"),
        ("[torch.as_tensor(t).cuda() if cuda else t for t in batch]", "t"),
        ("{k: move_data_to_device(v, device) for k, v in batch.items()}", "v"),
    ):
        assert moved(_element(source), name, moves), source
    for source, name in (
        ("{k: v[:4].to(device) for k, v in batch.items()}", "v"),
        ('{k: torch.cat([v, batch["x"]]) for k, v in batch.items()}', "v"),
        ("[t.view(-1) for t in batch]", "t"),
        ("{k: move_data_to_device(w, v) for k, v in batch.items()}", "v"),
    ):
        assert not moved(_element(source), name, moves), source


def _inside(source: str) -> tuple[cst.DictComp, list[cst.CSTNode]]:
    """The dict comprehension and the ancestors of the call in its value, innermost first."""
    comp = cst.parse_expression(source)
    assert isinstance(comp, cst.DictComp) and isinstance(comp.value, cst.Call)
    return comp, [comp.value, comp]


def test_a_comprehension_taking_rows_or_joining_is_found_from_inside() -> None:
    for source in (
        "{k: v[:4].to(d) for k, v in batch.items()}",
        '{k: torch.cat([v, batch["x"]]) for k, v in batch.items()}',
    ):
        comp, ancestors = _inside(source)
        assert unmoved_comprehension(ancestors, frozenset()) is comp.value, source
    for source in (
        "{k: v.to(d) for k, v in batch.items()}",
        "{k: len(v.split()) for k, v in batch.items()}",  # one value per element: not cut
    ):
        comp, ancestors = _inside(source)
        assert unmoved_comprehension(ancestors, frozenset()) is None, source
