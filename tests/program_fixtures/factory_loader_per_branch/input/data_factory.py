"""Class v3-B of stop 41 (thuml/Time-Series-Library@4e938a1's data_provider): one DataLoader
per branch of the factory, each branch returning `data_set, data_loader`."""
import torch
from torch.utils.data import DataLoader, TensorDataset


def data_provider(args, flag):
    g = torch.Generator().manual_seed(0 if flag == "train" else 1)
    x = torch.randn({"train": 8, "val": 16}.get(flag, 12), 6, generator=g)
    data_set = TensorDataset(x, x.sum(1, keepdim=True))
    shuffle_flag = False if flag == "test" else True
    if args.task_name == "classification":
        data_loader = DataLoader(data_set, batch_size=args.batch_size, shuffle=shuffle_flag,
                                 collate_fn=lambda b: torch.utils.data.default_collate(b))
        return data_set, data_loader
    else:
        print(flag, len(data_set))
        data_loader = DataLoader(data_set, batch_size=args.batch_size, shuffle=shuffle_flag)
        return data_set, data_loader
