"""The control of data_s62_s3_method_loader_epoch_set_by_entry: the entry's epochs are a
`while` loop, where no set_epoch is placed: DP011 says the sampler advances by itself."""
import torch

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


class Pairs(torch.utils.data.Dataset):
    def __init__(self, n):
        self.x = torch.arange(n * 4, dtype=torch.float32).view(n, 4) / (n * 4)
        self.y = self.x.sum(1, keepdim=True)

    def __getitem__(self, index):
        return self.x[index], self.y[index]

    def __len__(self):
        return len(self.x)

    def get_loader(self, batch_size, shuffle):
        # dp2ddp: DP011 no epoch loop found for sampler.set_epoch
        return torch.utils.data.DataLoader(
            dataset=self,
            batch_size=ddp_per_rank_batch(batch_size),
            sampler=DdpDistributedSampler(self, shuffle=shuffle, advance_epoch=True),
        )
