from torch.nn.parallel import DistributedDataParallel


def bare(model):
    """The model under its wrapper (an isinstance check on the training model: follows DDP)."""
    return model.module if isinstance(model, DistributedDataParallel) else model
