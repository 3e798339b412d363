"""The entry of s62_s1_print_alias_bound_in_base_module: an agent of agents/regularization.py,
whose base class in agents/default.py binds the log alias, trained on two tasks."""
import torch
from torch.utils.data import DataLoader, TensorDataset

from agents.regularization import L2


def main():
    torch.manual_seed(0)
    agent = L2({"print_freq": 1, "lr": 0.05, "epochs": 2})
    for task in range(2):
        data = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
        agent.learn_batch(DataLoader(data, batch_size=8))
    print("weights %.4f" % sum(p.sum().item() for p in agent.model.parameters()))


if __name__ == "__main__":
    main()
