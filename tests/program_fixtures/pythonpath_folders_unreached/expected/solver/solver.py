import os

import torch


class Solver:
    def __init__(self, loader, model, opt, folder):
        self.loader, self.model, self.opt, self.folder = loader, model, opt, folder
        os.makedirs(folder, exist_ok=True)

    def train(self, epochs):
        for epoch in range(epochs):
            total = 0.0
            for x, y in self.loader:
                print("batch of", x.shape[0])
                loss = ((self.model(x) - y) ** 2).mean()
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
                total += loss.item()
            print("epoch %d loss %.6f" % (epoch, total / len(self.loader)))
            with open(os.path.join(self.folder, "log.txt"), "a") as f:
                f.write("epoch %d\n" % epoch)
            torch.save(self.model.module.state_dict(), os.path.join(self.folder, "model.pt"))
