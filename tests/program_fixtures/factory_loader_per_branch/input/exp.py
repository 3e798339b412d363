import numpy as np
import torch
import torch.nn as nn

from data_factory import data_provider


class Exp:
    def __init__(self, args):
        self.args = args
        self.model = nn.DataParallel(nn.Linear(6, 1))

    def _get_data(self, flag):
        data_set, data_loader = data_provider(self.args, flag)
        return data_set, data_loader

    def vali(self, vali_loader, criterion):
        total_loss = []
        self.model.eval()
        with torch.no_grad():
            for x, y in vali_loader:
                loss = criterion(self.model(x), y)
                total_loss.append(loss.item())
        self.model.train()
        return np.average(total_loss)

    def train(self):
        train_data, train_loader = self._get_data(flag="train")
        vali_data, vali_loader = self._get_data(flag="val")
        optim = torch.optim.SGD(self.model.parameters(), lr=0.05)
        criterion = nn.MSELoss()
        figures = []
        for epoch in range(self.args.epochs):
            for x, y in train_loader:
                optim.zero_grad()
                loss = criterion(self.model(x), y)
                loss.backward()
                optim.step()
            vali_loss = self.vali(vali_loader, criterion)
            print("Epoch: {0} | Vali Loss: {1:.4f}".format(epoch + 1, vali_loss))
            figures.append(round(float(vali_loss), 4))
        return figures

    def test(self):
        test_data, test_loader = self._get_data(flag="test")
        preds = []
        self.model.eval()
        with torch.no_grad():
            for x, y in test_loader:
                preds.append(self.model(x).numpy())
        preds = np.concatenate(preds, 0)
        print("test shape:", preds.shape)
        np.save("pred.npy", preds)
        return preds.shape[0]
