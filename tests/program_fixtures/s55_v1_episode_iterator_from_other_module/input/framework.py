import torch


class Framework:
    def __init__(self, train_stream):
        self.train_stream = train_stream

    def train(self, model, steps):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for step in range(steps):
            x, y = next(self.train_stream)
            loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            print(step, round(loss.item(), 4))
