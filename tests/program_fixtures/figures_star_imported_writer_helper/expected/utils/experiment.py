"""An averaging object and a helper writing a dict of figures as TensorBoard scalars."""

from torch.utils.tensorboard import SummaryWriter

from _dp2ddp import DdpNullWriter, ddp_is_main


class MeterDict:
    def __init__(self):
        self.sums = {}
        self.count = 0

    def update(self, figures):
        for key, value in figures.items():
            self.sums[key] = self.sums.get(key, 0.0) + value
        self.count += 1

    def mean(self):
        return {key: value / self.count for key, value in self.sums.items()}


def make_logger(logdir):
    return (SummaryWriter if ddp_is_main() else DdpNullWriter)(logdir)


def save_scalars(logger, mode, figures, step):
    for tag, value in figures.items():
        logger.add_scalar("{}/{}".format(mode, tag), value, step)
