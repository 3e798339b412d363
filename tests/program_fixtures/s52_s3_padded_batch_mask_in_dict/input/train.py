import torch
import torch.nn.functional as F

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
    torch.manual_seed(0)
    model = torch.nn.DataParallel(Classifier())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    masked = torch.utils.data.DataLoader(
        Sentences(16), batch_size=4, shuffle=True, collate_fn=masked_collate
    )
    bare = torch.utils.data.DataLoader(
        Sentences(16), batch_size=4, shuffle=True, collate_fn=bare_collate
    )
    for epoch in range(2):
        for batch in masked:
            optimizer.zero_grad()
            loss = model(**batch).mean()
            loss.backward()
            optimizer.step()
        print("masked", epoch, round(loss.item(), 4))
    for batch in bare:
        optimizer.zero_grad()
        loss = model(**batch).mean()
        loss.backward()
        optimizer.step()
    print("bare", round(loss.item(), 4))


if __name__ == "__main__":
    main()
