from aug.crops import Compose, RandomCrop


def get_co_transforms(crop):
    transforms = []
    if crop:
        transforms.append(RandomCrop(crop))
    return Compose(transforms)
