# A loader factory whose batch_size parameter defaults to 1, called from another module with
# its own value (bridgeqiqi/DIP2021-FinalPJbaseline@6c8f3a2, stop 53 v2): DP133 said "every
# binding it reads is the constant 1"; now it says where it is 1 and that callers pass theirs.
import torch
from torch.utils.data import DataLoader, TensorDataset


def get_train_loader(data, batch_size=1):
    return DataLoader(TensorDataset(*data), batch_size=batch_size, shuffle=True)
