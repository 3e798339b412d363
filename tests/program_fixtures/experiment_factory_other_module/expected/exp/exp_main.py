"""Issue 28: experiment_factory_early_stop's experiment with its loader factory in another
module, as the frameworks descended from zhouhaoyi/Informer2020@29f2a73 lay it out:
`data_provider(args, flag)` in data_provider/data_factory.py builds the training,
validation and test loaders and returns `(dataset, loader)`; the method `_get_data(flag)`
here wraps it. Before, all three loaders were sharded there (no loop over them in that
module, none followed here through the wrapper): the validation mean deciding early stopping
was each rank's own. Now the wrapper's evaluation calls pass `ddp_shard=False`, which it
hands on to the factory."""

import os

import numpy as np
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_barrier, ddp_is_main, ddp_print
from data_provider.data_factory import data_provider
from utils.tools import EarlyStopping

class Exp:
    def __init__(self, args):
        self.args = args
        self.model = self._build_model()

    def _build_model(self):
        torch.manual_seed(0)
        model = nn.Linear(4, 1)
        return DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)

    def _get_data(self, flag, ddp_shard=True):
        data_set, data_loader = data_provider(self.args, flag, ddp_shard=ddp_shard)
        return data_set, data_loader

    def vali(self, vali_data, vali_loader, criterion):
        total_loss = []
        for i, (x, y) in enumerate(vali_loader):
            loss = criterion(self.model(x).detach(), y)
            total_loss.append(loss.item())
        total_loss = np.average(total_loss)
        return total_loss

    def train(self, setting):
        train_data, train_loader = self._get_data(flag="train")
        # dp2ddp: DP015 evaluation metrics not reduced
        vali_data, vali_loader = self._get_data(flag="val", ddp_shard=False)
        # dp2ddp: DP015 evaluation metrics not reduced
        test_data, test_loader = self._get_data(flag="test", ddp_shard=False)
        path = os.path.join(self.args["checkpoints"], setting)
        if not os.path.exists(path):
            os.makedirs(path, exist_ok=True)
        early_stopping = EarlyStopping(patience=self.args["patience"])
        optim = torch.optim.SGD(self.model.parameters(), lr=self.args["lr"])
        criterion = nn.MSELoss()
        self.stopped = -1
        for epoch in range(self.args["epochs"]):
            train_loader.sampler.set_epoch(epoch)
            for i, (x, y) in enumerate(train_loader):
                optim.zero_grad()
                loss = criterion(self.model(x), y)
                loss.backward()
                optim.step()
            vali_loss = self.vali(vali_data, vali_loader, criterion)
            test_loss = self.vali(test_data, test_loader, criterion)
            ddp_print(
                "epoch {} vali {:.6f} test {:.6f}".format(
                    epoch + 1, vali_loss, test_loss
                ),
            )
            self.stopped = epoch + 1
            early_stopping(vali_loss, self.model, path)
            if early_stopping.early_stop:
                ddp_print("early stopping")
                break
        best_model_path = path + "/" + "checkpoint.pth"
        ddp_barrier()
        self.model.load_state_dict(torch.load(best_model_path, map_location=DEVICE))
        return self.model

    def test(self, setting):
        # dp2ddp: DP015 evaluation metrics not reduced
        test_data, test_loader = self._get_data(flag="test", ddp_shard=False)
        self.model.eval()
        preds = []
        trues = []
        with torch.no_grad():
            for i, (x, y) in enumerate(test_loader):
                preds.append(self.model(x).numpy())
                trues.append(y.numpy())
        preds = np.concatenate(preds)
        trues = np.concatenate(trues)
        mse = float(np.mean((preds - trues) ** 2))
        ddp_print("rows {} mse {:.6f}".format(preds.shape[0], mse))
        folder_path = "./results/" + setting + "/"
        if not os.path.exists(folder_path):
            os.makedirs(folder_path, exist_ok=True)
        if ddp_is_main():
            np.save(folder_path + "pred.npy", preds)
        return preds.shape[0], mse
