"""Batches a background thread puts into a queue (a `threading.Thread` subclass whose `run`
puts a generator's batches, `next()` gets one): DataParallel split each batch taken out;
every put of the queue is known, so the migration splits the batch taken, and each
rank's part is its half of the original batch (issue 28, class M1)."""

import queue
import threading

import torch
import torch.nn as nn


class Prefetcher(threading.Thread):
    def __init__(self, generator):
        threading.Thread.__init__(self)
        self.queue = queue.Queue(2)
        self.generator = generator
        self.daemon = True
        self.start()

    def run(self):
        for item in self.generator:
            self.queue.put(item)

    def next(self):
        return self.queue.get()


def batches(x, y, size):
    while True:
        for start in range(0, len(x), size):
            yield x[start : start + size], y[start : start + size]


def main():
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(1)
    x = torch.randn(32, 4, generator=generator)
    y = x @ torch.tensor([[1.0], [-2.0], [0.5], [3.0]])
    model = nn.DataParallel(nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1)))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    loader = Prefetcher(batches(x, y, 8))
    for _step in range(8):
        inputs, targets = loader.next()
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(inputs), targets)
        loss.backward()
        optimizer.step()
    print(f"loss {loss.item():.4f}")
    global E2E_DIGEST
    E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.parameters()]


if __name__ == "__main__":
    main()
