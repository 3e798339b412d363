"""Meters fed through their __call__ (GuYuc/WS-DAN.PyTorch's shape), kept in another module."""


class AverageMeter(object):
    def __init__(self, name="loss"):
        self.name = name
        self.reset()

    def reset(self):
        self.scores = 0.0
        self.total_num = 0.0

    def __call__(self, batch_score, sample_num=1):
        self.scores += batch_score
        self.total_num += sample_num
        return self.scores / self.total_num


class TopOneAccuracy(object):
    def __init__(self):
        self.reset()

    def reset(self):
        self.correct = 0
        self.num_samples = 0

    def update(self, output, target):
        self.num_samples += target.size(0)
        self.correct += (output.argmax(1) == target).sum().item()
        return 100.0 * self.correct / self.num_samples


class CountingLoss(object):
    """A criterion that counts its calls: no figure of the batches is kept."""

    def __init__(self):
        self.calls = 0

    def __call__(self, output, target):
        self.calls += 1
        return ((output - target.float().unsqueeze(1)) ** 2).mean()
