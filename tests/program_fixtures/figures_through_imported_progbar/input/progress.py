"""A progress bar of the program: `add` hands the figures to `update`, which sums them and
prints their means (knazeri/edge-connect@3142579's src/utils.Progbar)."""

import sys


class Progbar:
    def __init__(self, target):
        self.target, self.seen, self.sums = target, 0, {}

    def add(self, n, values=None):
        self.update(self.seen + n, values or [])

    def update(self, current, values):
        for k, v in values:
            self.sums[k] = self.sums.get(k, 0.0) + v * (current - self.seen)
        self.seen = current
        means = " - ".join("%s: %.4f" % (k, s / self.seen) for k, s in self.sums.items())
        sys.stdout.write("%d/%d - %s\n" % (self.seen, self.target, means))
