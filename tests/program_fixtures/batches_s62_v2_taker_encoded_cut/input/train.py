import argparse

import torch
import torch.nn as nn

from dataset import BalancedBatches
from utils import LabelConverter


class Decoder(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.image = nn.Linear(4, 8)
        self.embed = nn.Embedding(classes + 1, 8)
        self.out = nn.Linear(8, classes + 1)

    def forward(self, image, text):
        return self.out(self.image(image).unsqueeze(1) + self.embed(text))


def train(opt):
    torch.manual_seed(0)
    model = nn.DataParallel(Decoder(opt.classes))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.CrossEntropyLoss()
    converter = LabelConverter(opt.classes)
    train_dataset = BalancedBatches(opt)
    for iteration in range(opt.num_iter):
        image, labels = train_dataset.get_batch()
        text = converter.encode(labels)
        preds = model(image, text[:, :-1])
        cost = criterion(preds.reshape(-1, preds.shape[-1]), text[:, 1:].reshape(-1))
        model.zero_grad()
        cost.backward()
        optimizer.step()
    print(f"trained {opt.num_iter} steps, {text.size(0) == image.size(0)} row counts alike")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_iter", type=int, default=6)
    parser.add_argument("--batch_size", type=int, default=4)
    opt = parser.parse_args()
    opt.parts = [16, 16]
    opt.classes = 5
    opt.length = 3
    train(opt)
