"""The program's own transform: a fixed scale, no draw."""


class RandomJitter:
    """Scales every sample by the same factor (named as the drawing one is; draws nothing)."""

    def __init__(self, p=0.5, scale=0.5):
        self.p = p
        self.scale = scale

    def __call__(self, x):
        return x * (1.0 + self.scale * self.p)
