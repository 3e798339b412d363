from torch.utils.data import DataLoader, TensorDataset


class DS(TensorDataset):
    def get_loader(self):
        return DataLoader(self, batch_size=4, shuffle=False)
