import torch


def cuda(x):
    """To the GPU if there is one (the program's own helper, not Tensor.cuda)."""
    return x.cuda() if torch.cuda.is_available() else x
