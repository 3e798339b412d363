import torch
import torch.distributed as dist


class Trainer:
    def __init__(self, parallel_mode, ngpu, local_rank):
        self.model = torch.nn.Linear(4, 2)
        if parallel_mode == "dp":
            self.model = torch.nn.DataParallel(self.model, device_ids=range(ngpu))
        else:
            dist.init_process_group("gloo", rank=local_rank, world_size=ngpu)
            self.model = torch.nn.parallel.DistributedDataParallel(self.model)

    def train(self):
        for _ in range(2):
            self.model(torch.rand(8, 4)).sum().backward()
