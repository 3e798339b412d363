class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.seen = 0
        self.correct = 0
        self.total_loss = 0.0

    def train_epoch(self, data):
        for x, y in data:
            out = self.model(x)
            loss = ((out - y) ** 2).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.seen += len(x)
            self.correct += ((out > 0) == (y > 0)).sum().item()
            self.total_loss += loss.item() * len(x)
