"""GRU classifier over variable-length sequences, padded per batch by a collate_fn.

From "Why is training not starting with nn.DataParallel?": the DataLoader's collate_fn pads
each batch with pad_sequence, so batches differ in length. DataParallel splits the padded
batch along dim 0 and every replica sees the full padded width; under DDP each process
pads only its own batches.
"""

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.nn.utils.rnn import pack_padded_sequence, pad_sequence
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    ddp_all_reduce_mean,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)

ddp_setup()


class SequenceDataset(Dataset):
    """Sequences of 4-d feature vectors; the label is whether the features sum to > 0."""

    def __init__(self, num_sequences, feature_size, min_len=3, max_len=20, seed=0):
        generator = torch.Generator().manual_seed(seed)
        lengths = torch.randint(min_len, max_len + 1, (num_sequences,), generator=generator)
        self.sequences = [torch.randn(int(n), feature_size, generator=generator) for n in lengths]
        self.labels = [int(seq[:, 0].sum() > 0) for seq in self.sequences]

    def __len__(self):
        return len(self.sequences)

    def __getitem__(self, idx):
        return self.sequences[idx], self.labels[idx]


def pad_collate(batch):
    sequences, labels = zip(*batch)
    lengths = torch.tensor([len(seq) for seq in sequences])
    padded = pad_sequence(sequences, batch_first=True)  # (batch, longest, features)
    return padded, lengths, torch.tensor(labels)


class GRUClassifier(nn.Module):
    def __init__(self, feature_size, hidden_size, num_classes):
        super().__init__()
        self.gru = nn.GRU(feature_size, hidden_size, batch_first=True)
        self.head = nn.Linear(hidden_size, num_classes)

    def forward(self, padded, lengths):
        packed = pack_padded_sequence(padded, lengths.cpu(), batch_first=True, enforce_sorted=False)
        _, hidden = self.gru(packed)
        return self.head(hidden[-1])


torch.manual_seed(0)
feature_size, hidden_size, num_classes = 4, 32, 2
device = "cuda" if torch.cuda.is_available() else "cpu"

train_set = SequenceDataset(384, feature_size, seed=1)
train_loader = DataLoader(
    train_set,
    batch_size=ddp_per_rank_batch(32),
    sampler=DistributedSampler(train_set, shuffle=True),
    collate_fn=pad_collate,
)

model = GRUClassifier(feature_size, hidden_size, num_classes)
if torch.cuda.device_count() > 1 and ddp_is_main():
    print("Using Data Parallel...")
model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
model = model.to(device)

criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)

for epoch in range(3):
    train_loader.sampler.set_epoch(epoch)
    model.train()
    epoch_loss = 0.0
    for padded, lengths, labels in train_loader:
        padded, labels = padded.to(device), labels.to(device)
        optimizer.zero_grad()
        logits = model(padded, lengths)
        loss = criterion(logits, labels)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        epoch_loss += loss.item()
    epoch_loss = ddp_all_reduce_mean(epoch_loss)
    ddp_print(f"epoch {epoch}: mean loss {epoch_loss / len(train_loader):.4f}")

ddp_print(f"final loss {loss.item():.4f}")
