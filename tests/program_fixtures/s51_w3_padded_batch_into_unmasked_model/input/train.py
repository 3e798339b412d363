import torch
import torch.nn.functional as F

from data import PAD, PadCollate, Sentences


class Classifier(torch.nn.Module):
    """Embeds the tokens, convolves along the sequence, sums over it: no mask."""

    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(PAD + 1, 4)
        self.conv = torch.nn.Conv1d(4, 4, kernel_size=3, padding=1)
        self.head = torch.nn.Linear(4, 2)

    def forward(self, tokens):
        hidden = self.conv(self.embed(tokens).transpose(1, 2))
        return self.head(hidden.sum(dim=2))


def main():
    torch.manual_seed(0)
    model = torch.nn.DataParallel(Classifier())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = torch.utils.data.DataLoader(
        Sentences(16), batch_size=4, shuffle=True, collate_fn=PadCollate()
    )
    for epoch in range(2):
        for tokens, labels in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(tokens), labels)
            decay = F.mse_loss(model.module.head.weight, torch.zeros(2, 4))
            (loss + 0.01 * decay).backward()
            optimizer.step()
        print(epoch, loss.item())


if __name__ == "__main__":
    main()
