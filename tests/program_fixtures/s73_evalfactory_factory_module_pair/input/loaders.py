"""One loader factory for every split (its locals named for training), and a helper
returning the fit and the held-out loader as a pair."""
from torch.utils.data import DataLoader, TensorDataset


def build_loader(rows, targets, batch_size):
    train_set = TensorDataset(rows, targets)
    train_loader = DataLoader(train_set, batch_size=batch_size, shuffle=False)
    return train_loader


def split_loaders(rows, targets, held_out, batch_size):
    return (
        build_loader(rows[held_out:], targets[held_out:], batch_size),
        build_loader(rows[:held_out], targets[:held_out], batch_size),
    )
