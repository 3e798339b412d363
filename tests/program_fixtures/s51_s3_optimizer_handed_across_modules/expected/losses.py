# stop 51 s3: `if self.opt is not None` in a helper class of another module, handed an
# optimizer class of this module built in train.py (patelrajnath/pytorch-dl@008c0e9
# dataset/iwslt_data.py:125-139, NoamOpt): never None, the same on every rank, no DP075.


class WarmupOpt:
    def __init__(self, optimizer, warmup):
        self.optimizer = optimizer
        self.warmup = warmup

    def step(self):
        self.optimizer.step()


class LossCompute:
    def __init__(self, criterion, opt=None):
        self.criterion = criterion
        self.opt = opt

    def __call__(self, x, y):
        loss = self.criterion(x, y)
        loss.backward()
        if self.opt is not None:
            self.opt.step()
            self.opt.optimizer.zero_grad()
        return loss.item()
