# A vendored synchronized-BatchNorm package (as in yassouali/pytorch-segmentation@33434fa
# utils/sync_batchnorm/ and jfzhang95/pytorch-deeplab-xception@9135e10
# modeling/sync_batchnorm/): DataParallel machinery of the project's own, left as it is.
import functools

from torch.nn.parallel.data_parallel import DataParallel


class DataParallelWithCallback(DataParallel):
    """Calls __data_parallel_replicate__ on each replica's modules."""

    def replicate(self, module, device_ids):
        modules = super().replicate(module, device_ids)
        _call_back(modules)
        return modules


def _call_back(modules):
    for copy_id, module in enumerate(modules):
        for m in module.modules():
            if hasattr(m, "__data_parallel_replicate__"):
                m.__data_parallel_replicate__(copy_id)


def patch_replication_callback(data_parallel):
    assert isinstance(data_parallel, DataParallel)
    old_replicate = data_parallel.replicate

    @functools.wraps(old_replicate)
    def new_replicate(module, device_ids):
        modules = old_replicate(module, device_ids)
        _call_back(modules)
        return modules

    data_parallel.replicate = new_replicate
