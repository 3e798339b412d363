from util import *

# isort: split
from _dp2ddp import ddp_is_main


def train(folder, loader, model, optimizer, epochs):
    os.makedirs(folder, exist_ok=True)
    for epoch in range(epochs):
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    if ddp_is_main():
        torch.save(model.state_dict(), os.path.join(folder, "model.pth"))
        print("saved %s" % os.path.exists(os.path.join(folder, "model.pth")))
