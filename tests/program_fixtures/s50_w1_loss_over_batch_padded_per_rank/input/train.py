import torch
import torch.nn.functional as F

from data import Frames, PadCollate


def main():
    torch.manual_seed(0)
    model = torch.nn.DataParallel(torch.nn.Linear(3, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = torch.utils.data.DataLoader(
        Frames(16), batch_size=4, shuffle=True, collate_fn=PadCollate()
    )
    for epoch in range(2):
        for inputs, targets in loader:
            optimizer.zero_grad()
            loss = F.mse_loss(model(inputs), targets)
            loss.backward()
            optimizer.step()
        print(epoch, loss.item())


if __name__ == "__main__":
    main()
