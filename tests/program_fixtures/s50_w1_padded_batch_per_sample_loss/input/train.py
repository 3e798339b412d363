import torch
import torch.nn.functional as F

from data import Tagged, pad_batch


def main():
    torch.manual_seed(0)
    model = torch.nn.DataParallel(torch.nn.Linear(3, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = torch.utils.data.DataLoader(
        Tagged(16), batch_size=4, shuffle=True, collate_fn=pad_batch
    )
    for epoch in range(2):
        for inputs, labels in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(inputs[:, 0]), labels)
            loss.backward()
            optimizer.step()
        print(epoch, loss.item())


if __name__ == "__main__":
    main()
