import torch

from models.networks import init_net


class Model:
    def __init__(self, opt):
        self.opt = opt
        self.net = init_net(torch.nn.Linear(4, 1))
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=0.1)

    def set_input(self, batch):
        self.x, self.y = batch

    def is_train(self):
        return self.x.size(0) == self.opt.batch_size

    def optimize(self):
        loss = ((self.net(self.x) - self.y) ** 2).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        print("loss", loss.item())
