"""A loader a Dataset's own method returns (JojoFisherman/Neural-Machine-Translation-with-
Attention@bd34650's `Dataset.get_loader`), trained on by the entry's `for epoch in
range(...)` loop: the entry calls set_epoch, so no DP011 here (its sampler still advances by
itself on a pass none numbers)."""
import torch


class Pairs(torch.utils.data.Dataset):
    def __init__(self, n):
        self.x = torch.arange(n * 4, dtype=torch.float32).view(n, 4) / (n * 4)
        self.y = self.x.sum(1, keepdim=True)

    def __getitem__(self, index):
        return self.x[index], self.y[index]

    def __len__(self):
        return len(self.x)

    def get_loader(self, batch_size, shuffle):
        return torch.utils.data.DataLoader(dataset=self, batch_size=batch_size, shuffle=shuffle)
