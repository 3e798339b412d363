from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


class DS(TensorDataset):
    def get_loader(self, ddp_shard=True):
        return DataLoader(
            self,
            batch_size=ddp_per_rank_batch(4) if ddp_shard else 4,
            shuffle=None if ddp_shard else True,
            sampler=(
                DdpDistributedSampler(self, shuffle=True, advance_epoch=True)
                if ddp_shard
                else None
            ),
        )
