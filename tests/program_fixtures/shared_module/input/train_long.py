import torch

from shared import build, fit

if __name__ == "__main__":
    model = build()
    fit(model, epochs=3)
    torch.save(model.state_dict(), "long.pt")
