from torch.nn.parallel import DistributedDataParallel


def unwrap(model):
    """The bare model, whether it was wrapped for several GPUs or not."""
    if isinstance(model, DistributedDataParallel):
        return model.module
    return model
