"""Averaging meters of the program (face.evoLVe.PyTorch's util/utils.py shape)."""


class AverageMeter(object):
    """Computes and stores the average and current value"""

    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class BatchMeter(object):
    """A mean of the batches' means (a count of 1 each)."""

    def __init__(self):
        self.total = 0.0
        self.steps = 0

    def update(self, val):
        self.total += val
        self.steps += 1
        self.mean = self.total / self.steps
