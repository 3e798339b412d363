from torch.utils.data import DataLoader

from _dp2ddp import ddp_loader_arguments


class TaskLoader(DataLoader):
    """A project loader: forwards its sampler arguments to DataLoader."""

    def __init__(self, dataset, batch_size=1, shuffle=False, sampler=None,
                 batch_sampler=None, num_workers=0, ddp_shard=True):
        super().__init__(
            **ddp_loader_arguments(
                dataset=dataset,
                batch_size=batch_size,
                shuffle=shuffle,
                sampler=sampler,
                batch_sampler=batch_sampler,
                num_workers=num_workers,
                ddp_shard=ddp_shard,
            ),
        )
