"""The program's metric and meter classes (our own), in a module of their own."""


class Errors:
    def __init__(self):
        self.values, self.count = {}, 0

    def measure(self, pred, target):
        self.count = target.numel()
        self.values["mae"] = (pred - target).abs().mean().item()

    def value(self, name):
        return self.values[name]


class Meter:
    def __init__(self):
        self.total, self.n = 0.0, 0

    def add(self, value, n):
        self.total += value * n
        self.n += n
