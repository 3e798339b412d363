"""Stand-in for torchvision.transforms in the round classes' launch: Compose runs each
transform of its list on the sample in turn, as torchvision's does (draws nothing itself)."""


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x


class Lambda:
    def __init__(self, lambd):
        self.lambd = lambd

    def __call__(self, x):
        return self.lambd(x)
