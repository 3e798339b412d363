import torch
import torch.nn as nn

N_MELS = 3
HIDDEN = 6


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(N_MELS, HIDDEN)
        self.out = nn.Linear(HIDDEN, N_MELS)

    def init_hiddens(self, batch_size):
        return torch.zeros(batch_size, HIDDEN)

    def forward(self, frame, h):
        h = self.cell(frame, h)
        return self.out(h), h
