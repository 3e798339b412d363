from torch.nn.parallel import DistributedDataParallel


def unwrap(model):
    """The bare model, whether it was wrapped for several GPUs or not."""
    # dp2ddp: DP046 isinstance check rewritten in a module that wraps no model
    if isinstance(model, DistributedDataParallel):
        return model.module
    return model
