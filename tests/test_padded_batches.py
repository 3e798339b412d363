"""DP127's facts (dp2ddp/program/padded_batches.py): which collates pad to a length the
batch decides, and which losses are a mean over elements (stop 50, helper w1)."""

from __future__ import annotations

import ast

from dp2ddp.program.padded_batches import (
    mean_losses,
    padded_mean_notes,
    padding_collates,
    padding_facts,
    trains_with_collate,
)
from dp2ddp.program.padded_inputs import masking_collates

HELPERS = """
import numpy as np
def pad_1D(inputs, PAD=0):
    def pad_data(x, length, PAD):
        return np.pad(x, (0, length - x.shape[0]), mode="constant", constant_values=PAD)
    max_len = max((len(x) for x in inputs))
    return np.stack([pad_data(x, max_len, PAD) for x in inputs])
def to_ten(inputs):
    return np.stack([np.pad(x, (0, 10 - len(x))) for x in inputs])
"""

DATASET = """
class Dataset:
    def collate_fn(self, data):
        return pad_1D([d["text"] for d in data])
    def fixed_collate(self, data):
        return to_ten(data)
class Longest:
    def __call__(self, batch):
        longest = 0
        for x in batch:
            if len(x) > longest:
                longest = len(x)
        return torch.zeros(len(batch), longest)
def by_sequence(batch):
    return pad_sequence(batch, batch_first=True)
def main():
    return DataLoader(ds, shuffle=True, collate_fn=Longest())
"""


def test_a_collate_pads_by_itself_or_through_a_helper_of_the_program() -> None:
    facts = [*padding_facts(ast.parse(HELPERS)), *padding_facts(ast.parse(DATASET))]
    found = padding_collates(facts)
    assert {"pad_1D", "collate_fn", "Longest", "by_sequence"} <= found
    assert not {"to_ten", "fixed_collate", "main"} & found  # main builds a class, runs none


def test_only_a_training_loader_handed_a_padding_collate_counts() -> None:
    collates = frozenset({"Longest", "collate_fn"})
    training = "DataLoader(ds, batch_size=4, shuffle=True, collate_fn=Longest())"
    assert trains_with_collate(ast.parse(training), collates)
    method = "DataLoader(ds, batch_sampler=sampler, collate_fn=ds.collate_fn)"
    assert trains_with_collate(ast.parse(method), collates)
    evaluation = "DataLoader(ds, batch_size=4, shuffle=False, collate_fn=Longest())"
    assert not trains_with_collate(ast.parse(evaluation), collates)
    other = "DataLoader(ds, batch_size=4, shuffle=True, collate_fn=stack)"
    assert not trains_with_collate(ast.parse(other), collates)


def test_a_mean_over_elements_is_found_not_a_sum_a_selection_or_per_sample_values() -> None:
    source = """
a = F.mse_loss(x, y)
b = F.mse_loss(x[m], y[m])
c = F.mse_loss(x, y, reduction="sum")
d = ((x - y) ** 2).mean()
e = torch.mean(torch.abs(x - y))
f = torch.mean(loss / lengths.float())
g = x.mean()
h = nn.L1Loss()
i = nn.L1Loss(reduction="sum")
j = F.cross_entropy(x, y)
k = (x - y).pow(2).mean(1)
l = F.l1_loss(x * mask, y * mask)
"""
    lines = [line for line, _, _ in mean_losses(ast.parse(source))]
    assert sorted(lines) == [2, 5, 6, 9, 13]


HANDED = """
def _pad_tensor(vec, pad, val):
    pad_size = list(vec.size())
    pad_size[0] = pad - vec.size(0)
    return torch.cat([vec, vec.new(*pad_size).fill_(val)])
class PadCollate:
    def __call__(self, batch):
        longest = max(len(x) for x, _ in batch)
        return torch.stack([_pad_tensor(x, longest, 5) for x, _ in batch]), labels(batch)
class FixedCollate:
    def __call__(self, batch):
        return torch.stack([_pad_tensor(x, 12, 5) for x, _ in batch]), labels(batch)
"""


def test_a_collate_pads_by_handing_its_longest_to_a_helper_that_sizes_a_tensor() -> None:
    """dhpollack/bytenet.pytorch@9aba0ef's `PadCollate` -> `_pad_tensor(x, pad=max_len)`
    (stop 51 w3); handed a fixed length, the same helper is no padding to the batch's
    longest."""
    collates = padding_collates(padding_facts(ast.parse(HANDED)))
    assert "PadCollate" in collates
    assert "FixedCollate" not in collates


TRAIN = """
class Conv(nn.Module):
    def __init__(self):
        self.conv = nn.Conv1d(4, 4, 3, padding=1)
class Wrapper(nn.Module):
    def __init__(self):
        self.inner = Conv()
class Dense(nn.Module):
    def __init__(self):
        self.fc = nn.Linear(4, 4)
def main():
    conv = nn.DataParallel(Wrapper())
    dense = nn.DataParallel(Dense().cuda())
    unknown = nn.DataParallel(make_model())
    decay = nn.MSELoss()
    loader = DataLoader(ds, batch_size=4, shuffle=True, collate_fn=PadCollate())
    for x, y in loader:
        out = conv(x)
        a = conv(x, mask=x != 5)
        b = conv(x, lengths)
        c = dense(x)
        d = unknown(x)
        packed = pack_padded_sequence(x, n)
        h = conv(packed)
        e = F.mse_loss(out, y)
        f = F.mse_loss(conv.module.inner.conv.weight, zeros)
        g = decay(conv.module.inner.conv.bias, zeros)
"""


def test_the_padded_batch_is_followed_to_the_model_and_the_loss() -> None:
    """DP127 at a call of a model that mixes positions (through the program's classes) or
    is not known, handed the padded batch without a mask or lengths; at a mean loss the
    batch reaches, not at one over the weights (stop 51 w3)."""
    trees = [ast.parse(HANDED), ast.parse(TRAIN)]
    collates = padding_collates(fact for tree in trees for fact in padding_facts(tree))
    said = {(line, what.split(",")[0]) for _, line, _, what in padded_mean_notes(trees, collates)}
    assert said == {(18, "conv(x)"), (22, "unknown(x)"), (25, "F.mse_loss")}


KEYED = """
def with_mask(items):
    longest = max(len(x) for x in items)
    ids = torch.zeros(len(items), longest)
    return dict(input_ids=ids, lengths=[len(x) for x in items])
def without(items):
    longest = max(len(x) for x in items)
    return {"input_ids": torch.zeros(len(items), longest)}
class Trainer:
    def step_loss(self, x):
        return F.mse_loss(x, x.flip(0)) + F.mse_loss(self.model.module.w, self.zeros)
    def weight_loss(self, x):
        return F.mse_loss(self.model.module.w, self.zeros)
    def run(self):
        model = nn.DataParallel(make_model())
        masked = DataLoader(ds, shuffle=True, collate_fn=with_mask)
        bare = DataLoader(ds, shuffle=True, collate_fn=without)
        for batch in masked:
            batch = {k: v.to(device) for k, v in batch.items()}
            out = model(**batch)
            loss = self.step_loss(out)
        for batch in bare:
            out = model(**batch)
            loss = self.weight_loss(out)
"""


def test_a_mask_key_of_the_collate_and_a_loss_helper_are_followed() -> None:
    """`**batch` of a collate's dict holding `lengths` (kept through a comprehension over
    its items) hands the mask: no DP127; one of a dict without: DP127. A method called only
    from the padded loops is followed through its parameters: its mean over the batch said,
    its mean over the weights alone not (stop 52 s3)."""
    trees = [ast.parse(KEYED)]
    collates = padding_collates(padding_facts(trees[0]))
    masking = frozenset(name for name, masks in masking_collates(trees[0]) if masks)
    assert {"with_mask", "without"} <= collates and "with_mask" in masking
    assert "without" not in masking
    said = {
        (line, col, what.split(",")[0])
        for _, line, col, what in padded_mean_notes(trees, collates, masking)
    }
    assert said == {(11, 16, "F.mse_loss"), (23, 19, "model(**batch)")}


def test_a_method_called_on_its_class_is_followed_by_either_position() -> None:
    """`Trainer.step_loss(self, out)`: the batch is the method's `x` (past `self`), though
    the call's receiver is the class: its mean over `x` said (stop 52 s3)."""
    source = KEYED.replace("loss = self.step_loss(out)", "loss = Trainer.step_loss(self, out)")
    trees = [ast.parse(source)]
    collates = padding_collates(padding_facts(trees[0]))
    masking = frozenset(name for name, masks in masking_collates(trees[0]) if masks)
    said = {(line, col) for _, line, col, _ in padded_mean_notes(trees, collates, masking)}
    assert (11, 16) in said  # step_loss's mean over `x`, the batch's `out`
    assert (13, 16) not in said  # weight_loss's mean over the weights alone


POSITIONS = """
def pad_pairs(items):
    return pad_sequence([x for x, _ in items]), pad_sequence([y for _, y in items])
class Trainer:
    def __init__(self):
        self.model = nn.DataParallel(Tagger())
        self.loss_fn = nn.CrossEntropyLoss()
        self.masked_fn = nn.CrossEntropyLoss(ignore_index=0)
    def train_epoch(self, ds):
        loader = DataLoader(ds, shuffle=True, collate_fn=pad_pairs)
        for x, y in loader:
            out = self.model(x, mask=x != 0)
            a = self.loss_fn(out.reshape(-1, out.shape[-1]), y.reshape(-1))
            b = F.cross_entropy(out.view(x.size(0) * x.size(1), 7), y.flatten())
            c = self.masked_fn(out.view(-1, 7), y.view(-1))
            d = F.cross_entropy(out[:, 0], y[:, 0])
    def evaluate(self, ds):
        loader = DataLoader(ds, collate_fn=pad_pairs)
        for x, y in loader:
            out = self.model(x, mask=x != 0)
            e = self.loss_fn(out.view(-1, 7), y.view(-1))
"""


def test_a_cross_entropy_over_the_flattened_positions_is_said() -> None:
    """A mean cross entropy (an object of the module or F.cross_entropy) handed the padded
    batch's positions flattened into rows: its count is each rank's padded length (round 8,
    AdFiFi/MachineTranslation@d926914's `self.loss_fn(logits.reshape(-1, V), tgt.reshape(
    -1))`). Not: one leaving the padding out (`ignore_index`, DP043's), one over a row per
    sample, one in a validation pass whose own `loader` only shares the training loader's
    name (stop 55 v1)."""
    trees = [ast.parse(POSITIONS)]
    collates = padding_collates(padding_facts(trees[0]))
    said = {(line, what) for _, line, _, what in padded_mean_notes(trees, collates)}
    assert said == {
        (13, "self.loss_fn over the batch's flattened positions"),
        (14, "F.cross_entropy over the batch's flattened positions"),
    }
