"""`code_of`'s table of printed texts (stop 59, docs/testing.md): a migration's passes ask
for the text of the same node objects about four times, so `migrate_parsed` opens
`texts_remembered` and each node is printed once. The text must be the one printed afresh."""

from __future__ import annotations

from unittest import mock

import libcst as cst

from dp2ddp import migrate_source
from dp2ddp.transforms._support import nodes
from dp2ddp.transforms._support.nodes import code_of, texts_remembered

PRINT = cst.Module.code_for_node


def _counted() -> mock._patch[mock.MagicMock]:
    return mock.patch.object(cst.Module, "code_for_node", autospec=True, side_effect=PRINT)


def test_a_node_is_printed_once_while_the_table_is_open() -> None:
    call = cst.parse_expression("model(x[0] ,  y)")
    same_text = cst.parse_expression("model(x[0] ,  y)")  # another node: its own entry
    with _counted() as printing:
        with texts_remembered():
            texts = [code_of(call), code_of(call), code_of(same_text), code_of(call)]
            with texts_remembered():  # nested: the outer table is kept
                texts.append(code_of(call))
            texts.append(code_of(call))
        assert printing.call_count == 2
        assert texts == ["model(x[0] ,  y)"] * 6
        assert code_of(call) == "model(x[0] ,  y)"  # closed: printed afresh
        assert printing.call_count == 3


def test_a_migration_prints_each_node_once() -> None:
    source = (
        "import torch\nimport torch.nn as nn\n\nmodel = nn.DataParallel(nn.Linear(4, 2))\n"
        "for x in torch.randn(3, 8, 4):\n    loss = model(x).sum()\n    loss.backward()\n"
    )
    printed: list[int] = []  # the nodes code_of printed (on its own empty module)

    def remember(module: cst.Module, node: cst.CSTNode) -> str:
        if module is nodes._EMPTY_MODULE:
            printed.append(id(node))  # the table holds the node: its id is its own
        return PRINT(module, node)

    with mock.patch.object(cst.Module, "code_for_node", autospec=True, side_effect=remember):
        migrated = migrate_source(source, filename="train.py")
    assert "DistributedDataParallel" in migrated.code
    assert printed, "the passes ask for nodes' texts"
    assert len(printed) == len(set(printed)), "a node printed twice in one migration"
