import torch


def announce(text):
    print(text)


def save(model, path):
    """Export tool: reads a checkpoint into a model (never called by the training)."""
    model.load_state_dict(torch.load(path)["weights"])
