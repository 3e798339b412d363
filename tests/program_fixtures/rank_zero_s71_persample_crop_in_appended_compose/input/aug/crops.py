"""The program's own joint transforms, each called on a sample's images and target."""
import random


class Compose:
    def __init__(self, co_transforms):
        self.co_transforms = co_transforms

    def __call__(self, images, target):
        for t in self.co_transforms:
            images, target = t(images, target)
        return images, target


class RandomCrop:
    def __init__(self, size):
        self.size = size

    def __call__(self, images, target):
        h, w = images[0].shape
        x1 = random.randint(0, w - self.size)
        y1 = random.randint(0, h - self.size)
        images = [img[y1 : y1 + self.size, x1 : x1 + self.size] for img in images]
        if "mask" in target:
            target["mask"] = target["mask"][y1 : y1 + self.size, x1 : x1 + self.size]
        return images, target
