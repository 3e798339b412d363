"""A Trainer keeping its epoch loss in a library's meter (vpromise/2d-pose-pytorch's
torchnet AverageValueMeter): fed in one method, printed and stepping a plateau scheduler
handed in, in another. The model is wrapped here, as there."""

from torch.nn.parallel import DistributedDataParallel
from torch.optim.lr_scheduler import ReduceLROnPlateau
from torchnet import meter

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print


class Trainer(object):
    def __init__(self, model, loader, optimizer, criterion, scheduler):
        self.model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
        self.train_data = loader
        self.optimizer = optimizer
        self.criterion = criterion
        self.lr_scheduler = scheduler
        self.loss_meter = meter.AverageValueMeter()

    def train(self, epochs):
        for epoch in range(epochs):
            self.loss_meter.reset()
            self._train_one_epoch()
            # dp2ddp: DP030 running figure printed from this rank's shard
            ddp_print("epoch %d loss %.4f" % (epoch, self.loss_meter.value()[0]))
            if isinstance(self.lr_scheduler, ReduceLROnPlateau):
                # dp2ddp: DP090
                self.lr_scheduler.step(self.loss_meter.value()[0])

    def _train_one_epoch(self):
        for step, (data, label) in enumerate(self.train_data):
            loss = self.criterion(self.model(data), label)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.loss_meter.add(loss.item())
