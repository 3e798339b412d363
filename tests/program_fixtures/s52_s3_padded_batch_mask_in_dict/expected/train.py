import torch
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_per_rank_batch, ddp_print, ddp_setup
from data import PAD, Sentences, bare_collate, masked_collate


class Classifier(torch.nn.Module):
    """Embeds, convolves along the sequence, averages over the real tokens when masked."""

    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(PAD + 6, 4)
        self.conv = torch.nn.Conv1d(4, 4, kernel_size=3, padding=1)
        self.head = torch.nn.Linear(4, 2)

    def forward(self, input_ids, labels, attention_mask=None):
        if attention_mask is None:
            attention_mask = torch.ones(input_ids.shape)
        keep = attention_mask.unsqueeze(1)
        hidden = self.conv(self.embed(input_ids).transpose(1, 2) * keep) * keep
        logits = self.head(hidden.sum(dim=2) / keep.sum(dim=2))
        return F.cross_entropy(logits, labels, reduction="none")


def main():
    ddp_setup()
    torch.manual_seed(0)
    model = DistributedDataParallel(Classifier().to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    masked_dataset = Sentences(16)
    masked = torch.utils.data.DataLoader(
        masked_dataset,
        batch_size=ddp_per_rank_batch(4),
        sampler=DistributedSampler(masked_dataset, shuffle=True),
        collate_fn=masked_collate,
    )
    bare_dataset = Sentences(16)
    bare = torch.utils.data.DataLoader(
        bare_dataset,
        batch_size=ddp_per_rank_batch(4),
        sampler=DistributedSampler(bare_dataset, shuffle=True),
        collate_fn=bare_collate,
    )
    for epoch in range(2):
        masked.sampler.set_epoch(epoch)
        for batch in masked:
            optimizer.zero_grad()
            loss = model(**batch).mean()
            loss.backward()
            optimizer.step()
        ddp_print("masked", epoch, round(loss.item(), 4))
    for batch in bare:
        optimizer.zero_grad()
        loss = model(**batch).mean()
        loss.backward()
        optimizer.step()
    ddp_print("bare", round(loss.item(), 4))


if __name__ == "__main__":
    main()
