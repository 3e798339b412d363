class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer

    def train_epoch(self, data):
        steps = 0
        for x, y in data:
            loss = ((self.model(x) - y) ** 2).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            steps += 1
        return steps

    def warmup(self, x, y):
        batches = [(x[i : i + 4], y[i : i + 4]) for i in range(0, len(x), 4)]
        return self.train_epoch(batches)
