import torch

from _dp2ddp import DEVICE, ddp_print


def announce(text):
    ddp_print(text)


def save(model, path):
    """Export tool: reads a checkpoint into a model (never called by the training)."""
    model.load_state_dict(torch.load(path, map_location=DEVICE)["weights"])
