"""The entry of s62_s1_print_alias_bound_in_base_module: an agent of agents/regularization.py,
whose base class in agents/default.py binds the log alias, trained on two tasks."""
import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_same_random,
    ddp_setup,
)
from agents.regularization import L2


def main():
    ddp_setup()
    torch.manual_seed(0)
    agent = L2({"print_freq": 1, "lr": 0.05, "epochs": 2})
    with ddp_same_random():
        for task in range(2):
            data = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
            agent.learn_batch(
                DataLoader(
                    data,
                    batch_size=ddp_per_rank_batch(8),
                    sampler=DdpDistributedSampler(data, shuffle=False),
                ),
            )
    ddp_print("weights %.4f" % sum(p.sum().item() for p in agent.model.parameters()))


if __name__ == "__main__":
    main()
