from torch.nn.parallel import DistributedDataParallel


def unwrap(model):
    """The bare model of a DataParallel wrap; this project's DDP model is kept as it is."""
    return model.module if isinstance(model, DistributedDataParallel) else model
