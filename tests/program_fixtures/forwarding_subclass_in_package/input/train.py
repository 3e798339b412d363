import torch

import model.utils as model_utils
from model.nets import Separator


def main():
    torch.manual_seed(0)
    model = Separator(["bass", "vocals"])
    model = model_utils.DataParallel(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    data = torch.utils.data.TensorDataset(torch.randn(16, 4), torch.randn(16, 2))
    loader = torch.utils.data.DataLoader(data, batch_size=4)
    for x, y in loader:
        opt.zero_grad()
        for inst in model.instruments:
            loss = ((model(x, inst)[inst] - y) ** 2).mean()
            loss.backward()
        opt.step()
    model_utils.save_model(model, "model.pt")
    print("weights", round(sum(p.sum().item() for p in model.module.parameters()), 4))


if __name__ == "__main__":
    main()
