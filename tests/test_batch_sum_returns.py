"""The statement walk that keeps a module with no `sum(` from the batch-sum reader: every
shape of a forwarding return is seen (else DP004 would miss a loss class's sum), and a model's
`return self.body(x) * self.scale` is not one (else every model module is analysed)."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from dp2ddp.transforms.hazards import batch_sum_returns
from dp2ddp.transforms.hazards.batch_sum_returns import (
    _forwarding_returns,
    module_batch_sum_returns,
)

FORWARDING = {
    "plain": """
        class Net:
            def get_loss(self, a, b):
                return self.loss(a, b)
    """,
    "in_a_branch": """
        class Net:
            def get_loss(self, a, b):
                if a is None:
                    return None
                elif b is None:
                    pass
                else:
                    try:
                        return self.loss(a, b)
                    finally:
                        pass
    """,
    "in_a_loop_and_with": """
        def score(a, b):
            for _ in range(1):
                with open("x") as f:
                    return chamfer(a, b)
    """,
    "tuple_element": """
        class Net:
            def forward(self, a, b):
                out = a
                return out, self.loss(a, b)
    """,
    "match_case": """
        def score(kind, a, b):
            match kind:
                case "chamfer":
                    return chamfer(a, b)
    """,
    "except_handler": """
        def score(a, b):
            try:
                pass
            except ValueError:
                return chamfer(a, b)
    """,
}

NOT_FORWARDING = {
    "model_output_scaled": """
        class Model:
            def forward(self, x):
                return self.body(x) * self.scale
    """,
    "dunder_and_nested": """
        class Model:
            def __init__(self):
                return None
            def forward(self, x):
                def inner(y):
                    return self.body(y)
                return x
    """,
    "call_without_arguments": """
        def make():
            return build()
    """,
}


@pytest.mark.parametrize("name", sorted(FORWARDING))
def test_forwarding_returns_are_seen(name: str) -> None:
    assert _forwarding_returns(cst.parse_module(textwrap.dedent(FORWARDING[name])))


@pytest.mark.parametrize("name", sorted(NOT_FORWARDING))
def test_a_model_output_is_no_forwarding_return(name: str) -> None:
    assert not _forwarding_returns(cst.parse_module(textwrap.dedent(NOT_FORWARDING[name])))


def test_a_module_without_sum_or_forward_is_not_read(monkeypatch: pytest.MonkeyPatch) -> None:
    source = "import torch\n" + textwrap.dedent(NOT_FORWARDING["model_output_scaled"])

    def no_reader(*args: object) -> None:
        raise AssertionError("the batch-sum reader ran on a module that cannot tell a sum")

    monkeypatch.setattr(batch_sum_returns, "_ExportBatchSums", no_reader)
    assert module_batch_sum_returns("m", "m.py", source, lambda: cst.parse_module(source)) == {}


def test_a_forwarding_loss_class_is_still_told() -> None:
    source = textwrap.dedent(
        """
        import torch
        from losses import ChamferLoss

        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.loss = ChamferLoss()

            def get_loss(self, inputs, outputs):
                return self.loss(inputs, outputs)
        """
    )
    told = module_batch_sum_returns("m", "m.py", source, lambda: cst.parse_module(source))
    assert list(told) == ["m.Net.get_loss"]
    assert told["m.Net.get_loss"][0].via == "losses.ChamferLoss.forward"
