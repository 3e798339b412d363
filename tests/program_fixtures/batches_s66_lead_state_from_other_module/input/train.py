"""A step function handed the wrapped decoder, whose hidden state the decoder's own method
builds (`decoder.module.init_hiddens(B)`, the class in decoder.py), for batches a data
object hands the caller's loop (`data.next_batch(B)`): the state takes this rank's part beside the split batch, as
DataParallel scattered it (stop 66, issue 28: dummy-ai/
tacotron-pytorch@2d99b60's `init_hiddens(hp.batch_size)` of modules/decoder.py; before:
the flow walked through the call as a library call's, the state kept the global batch and
every rank raised at the first step, unsaid)."""

import torch
import torch.nn as nn

from decoder import N_MELS, Decoder

BATCH = 8
STEPS = 4

def train_batch(batch, decoder, opt):
    frame = torch.zeros(BATCH, N_MELS)
    h = decoder.module.init_hiddens(BATCH)
    loss = 0
    for t in range(STEPS):
        out, h = decoder(frame, h)
        loss = loss + (out - batch[:, t]).pow(2).mean()
        frame = batch[:, t]
    opt.zero_grad()
    loss.backward()
    opt.step()


class Frames:
    def __init__(self, n):
        self.mels = torch.randn(n, STEPS, N_MELS)
        self.at = 0

    def next_batch(self, size):
        if self.at + size > len(self.mels):
            self.at = 0
        self.at += size
        return self.mels[self.at - size : self.at]


torch.manual_seed(0)
data = Frames(32)
decoder = nn.DataParallel(Decoder())
opt = torch.optim.SGD(decoder.parameters(), lr=0.1)
for epoch in range(2):
    for step in range(4):
        batch = data.next_batch(BATCH)
        train_batch(batch, decoder, opt)
print("weights %.4f" % sum(p.sum().item() for p in decoder.parameters()))
