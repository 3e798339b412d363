"""Issue 28/29 (real-world: zhouhaoyi/Informer2020@29f2a73, written anew): an experiment
class whose one loader factory `_get_data(flag)` builds the training, validation and test
loaders and returns `(dataset, loader)`; `vali()` returns the mean of this loop's per-batch
losses, which decides early stopping through an object of another module; the best
checkpoint that object saved is reloaded after the epoch loop (behind a barrier: the
`self.model.train()` calls are no calls of `train(setting)`, which would put the reload
where not every rank arrives), and `test()` concatenates its predictions and saves them."""

import os

import numpy as np
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_barrier,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_print,
)
from exp.exp_basic import ExpBasic
from utils.tools import EarlyStopping

SIZES = {"train": 16, "val": 8, "test": 8}


def rows(flag):
    generator = torch.Generator().manual_seed(len(flag))
    n = SIZES[flag]
    x = torch.randn(n, 4, generator=generator)
    return TensorDataset(x, x.sum(1, keepdim=True) + torch.randn(n, 1, generator=generator))


class Exp(ExpBasic):
    def _build_model(self):
        torch.manual_seed(0)
        model = nn.Linear(4, 1)
        return DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)

    def _get_data(self, flag, ddp_shard=True):
        args = self.args
        if flag == "test":
            shuffle_flag = False
            batch_size = 4
        else:
            shuffle_flag = args["shuffle"]
            batch_size = args["batch_size"]
        data_set = rows(flag)
        data_loader = DataLoader(
            data_set,
            batch_size=ddp_per_rank_batch(batch_size) if ddp_shard else batch_size,
            shuffle=None if ddp_shard else shuffle_flag,
            drop_last=True,
            sampler=(
                DdpDistributedSampler(
                    data_set, shuffle=shuffle_flag, drop_last=True, advance_epoch=True
                )
                if ddp_shard
                else None
            ),
        )
        return data_set, data_loader

    def vali(self, vali_data, vali_loader, criterion):
        self.model.eval()
        total_loss = []
        for i, (x, y) in enumerate(vali_loader):
            loss = criterion(self.model(x).detach(), y)
            total_loss.append(loss.item())
        total_loss = np.average(total_loss)
        self.model.train()  # no call of Exp.train(setting): `setting` is not passed
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
            self.model.train()
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
