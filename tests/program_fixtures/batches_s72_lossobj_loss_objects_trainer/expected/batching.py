"""A batch iterator of the program's own making (not a DataLoader): batches of rows."""


class BucketBatches:
    def __init__(self, x, y, batch_size):
        self.x, self.y, self.batch_size = x, y, batch_size

    def __iter__(self):
        for start in range(0, len(self.x), self.batch_size):
            yield self.x[start:start + self.batch_size], self.y[start:start + self.batch_size]
