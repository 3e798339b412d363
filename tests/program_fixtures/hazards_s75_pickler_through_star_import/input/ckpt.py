"""A checkpoint helper pickling the model object whole, the wrapper included."""
import torch

best_path = "best.tar"


def save_checkpoint(epoch, model, optimizer, path=best_path):
    state = {"epoch": epoch, "model": model, "optimizer": optimizer}
    torch.save(state, path)


def describe(model):
    """Reads the model for more than pickling it: handing the wrapper is not proved right."""
    torch.save({"model": model}, "last.tar")
    return sum(p.numel() for p in model.parameters())
