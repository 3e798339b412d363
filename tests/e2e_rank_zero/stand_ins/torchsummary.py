"""Stand-in for torchsummary (not installed here): runs the model's forward on a zero batch
of each input size and prints a table, as the library does."""

import torch


def summary(model, input_size, batch_size=-1, device="cuda"):
    sizes = input_size if isinstance(input_size, list) else [input_size]
    inputs = [torch.zeros(max(batch_size, 2), *size) for size in sizes]
    out = model(*inputs)
    print("SUMMARY", type(model).__name__, tuple(out.shape))
