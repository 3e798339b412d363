"""A loader's batches drawn through an object (shjo-april/PuzzleCAM@659b4c1
core/datasets.py's Iterator): the loader handed to the constructor, re-iterated at
StopIteration."""


class Iterator:
    def __init__(self, loader):
        self.loader = loader
        self.init()

    def init(self):
        self.iterator = iter(self.loader)

    def get(self):
        try:
            data = next(self.iterator)
        except StopIteration:
            self.init()
            data = next(self.iterator)
        return data
