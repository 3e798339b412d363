import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.query = nn.Linear(width, width)
        self.memory_layer = nn.Linear(width, width)

    def forward(self, query, memory):
        return (self.query(query) * memory).sum(-1, keepdim=True) * memory
