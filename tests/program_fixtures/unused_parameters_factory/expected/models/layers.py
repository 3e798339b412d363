import torch.nn as nn


class Residual(nn.Module):
    """Uses its projection only when the channel counts differ."""

    def __init__(self, inp, out):
        super().__init__()
        self.body = nn.Linear(inp, out)
        self.skip_layer = nn.Linear(inp, out)
        self.need_skip = inp != out

    def forward(self, x):
        if self.need_skip:
            residual = self.skip_layer(x)
        else:
            residual = x
        return self.body(x) + residual
