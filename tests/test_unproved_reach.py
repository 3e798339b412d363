"""DP041 for a layer not proved to reach forward()'s return: transforms/analysis/
unproved_reach.py (stop 48 w1, classes v3-B and v3-C). The golden fixtures
model_wrap_s48_w1_* hold the warned shapes; here, the proved ones stay quiet."""

from __future__ import annotations

from dp2ddp.transforms.analysis.partial_forward import module_classes, partial_models

ENTRIES = """
import torch
import torch.nn as nn


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 8)
        self.head = nn.Linear(8, 5)

    def forward(self, x):
        h = self.fc(x)
        out = {"logits": self.head(h), "embedding": h}
        return out


class Transfer(nn.Module):
    def __init__(self):
        super().__init__()
        self.base = Base()
        self.extra = nn.Linear(8, 3)

    def forward(self, x):
        out = self.base(x)
        {body}
        return out
"""


def _uses(source: str) -> dict[str, str]:
    return {n: u.describe() for n, u in partial_models(module_classes("", "", source)).items()}


def test_an_entry_stored_over_unread_starves_the_layer_feeding_only_it() -> None:
    body = 'out["logits"] = self.extra(out["embedding"])'
    uses = _uses(ENTRIES.replace("{body}", body))
    assert "entry 'logits'" in uses["Transfer"] and "self.head" in uses["Transfer"]


def test_an_entry_filled_after_the_literal_is_read_too() -> None:
    source = ENTRIES.replace(
        'out = {"logits": self.head(h), "embedding": h}',
        'out = {"embedding": h}\n        out["logits"] = self.head(h)',
    )
    uses = _uses(source.replace("{body}", 'out["logits"] = self.extra(out["embedding"])'))
    assert "Base.forward() alone feeds from self.head" in uses["Transfer"]


def test_an_entry_read_before_it_is_stored_over_is_proved() -> None:
    body = 'out["logits"] = self.extra(out["embedding"]) + out["logits"].sum()'
    assert "Transfer" not in _uses(ENTRIES.replace("{body}", body))


def test_an_entry_fed_also_into_another_is_proved() -> None:
    body = 'out["embedding"] = self.extra(out["embedding"])'
    assert "Transfer" not in _uses(ENTRIES.replace("{body}", body))


HANDED = """
import torch.nn as nn


class Inner(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Linear(4, 4)

    def forward(self, q, k, v, mask):
        {inner}


class Layer(nn.Module):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner
        self.key = nn.Linear(4, 4)
        self.value = nn.Linear(4, 4)

    def forward(self, x, mask):
        keys = self.key(x)
        values = self.value(x)
        return self.inner(x, keys, values, mask)
"""


def test_an_argument_a_program_class_never_reads_is_not_proved() -> None:
    uses = _uses(HANDED.replace("{inner}", "return self.w(q)"))
    assert "self.key" in uses["Layer"] and "Inner.forward() never reads" in uses["Layer"]


def test_arguments_every_program_class_reads_are_proved() -> None:
    assert "Layer" not in _uses(HANDED.replace("{inner}", "return self.w(q) + k + v"))


HELPER = """
    def _put(self, store, e):
        {helper}
"""


def test_an_entry_stored_over_in_a_method_handed_the_dict_starves_it() -> None:
    """Stop 49 (f2): the store made in `self._put(out, ...)`, forward() reading nothing."""
    source = ENTRIES.replace("{body}", 'self._put(out, out["embedding"])')
    source += HELPER.replace("{helper}", 'store["logits"] = self.extra(e)')
    assert "in self._put()" in _uses(source)["Transfer"]


def test_an_entry_read_before_the_method_stores_over_it_is_proved() -> None:
    body = 'y = out["logits"].sum()\n        self._put(out, out["embedding"])'
    source = ENTRIES.replace("{body}", body)
    helper = 'store["logits"] = self.extra(e)'
    assert "Transfer" not in _uses(source + HELPER.replace("{helper}", helper))
    body = 'self._put(out, out["embedding"])'
    helper = 'y = store["logits"].sum()\n        store["logits"] = self.extra(e)'
    source = ENTRIES.replace("{body}", body)
    assert "Transfer" not in _uses(source + HELPER.replace("{helper}", helper))
