import torch.nn as nn

from layers import Attention


class Decoder(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.attention_layer = Attention(width)
        self.out = nn.Linear(width, 3)

    def prepare(self, memory):
        return self.attention_layer.memory_layer(memory)

    def forward(self, x):
        processed = self.prepare(x)
        return self.out(self.attention_layer(x, processed))
