# ku21fan/STR-Fewer-Labels@0d9ef6a modules/semi_supervised.py, in brief: a mean teacher built
# under an option, wrapped, its mode set by `self.net.train()` (nn.Module's method, not
# train.py's train()).
import torch.nn as nn


class Teacher(nn.Module):
    def __init__(self, opt, net):
        super().__init__()
        self.net = nn.DataParallel(net)
        self.net.train()
        opt.semi_batch = opt.batch_size // 2

    def forward(self, x):
        return self.net(x).detach()
