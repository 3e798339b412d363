import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_is_main, ddp_print

from .data_loader import SentenceLoader


class SentenceRE(nn.Module):
    """A framework class holding the model, its DataParallel wrap and its three loaders."""

    def __init__(self, model, batch_size=8, max_epoch=2, lr=0.1):
        super().__init__()
        self.max_epoch = max_epoch
        self.train_loader = SentenceLoader(32, 0, batch_size, True)
        # dp2ddp: DP015 evaluation metrics not reduced
        self.val_loader = SentenceLoader(12, 1, batch_size, False, ddp_shard=False)
        # dp2ddp: DP015 evaluation metrics not reduced
        self.test_loader = SentenceLoader(10, 2, batch_size, False, ddp_shard=False)
        self.model = model
        # dp2ddp: DP022 wrapped model inside another wrapped model
        self.parallel_model = DistributedDataParallel(
            self.model.to(DEVICE), device_ids=DEVICE_IDS
        )
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.SGD(self.parameters(), lr)

    def train_model(self):
        best = 0
        for epoch in range(self.max_epoch):
            self.train_loader.sampler.set_epoch(epoch)
            self.train()
            for x, y in self.train_loader:
                loss = self.criterion(self.parallel_model(x), y)
                loss.backward()
                self.optimizer.step()
                self.optimizer.zero_grad()
            result = self.eval_model(self.val_loader)
            ddp_print("epoch", epoch, "val acc", result["acc"])
            if result["acc"] >= best:
                best = result["acc"]
                if ddp_is_main():
                    torch.save({"state_dict": self.model.state_dict()}, "ckpt.pth")
        ddp_print("best val acc", best)

    def eval_model(self, eval_loader):
        self.eval()
        pred_result = []
        with torch.no_grad():
            for x, y in eval_loader:
                pred = self.parallel_model(x).argmax(-1)
                for i in range(pred.size(0)):
                    pred_result.append(pred[i].item())
        return eval_loader.dataset.eval(pred_result)
