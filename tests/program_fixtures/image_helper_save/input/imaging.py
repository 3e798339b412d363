"""Sample grids as PIL images, built by helpers of the program."""

import numpy as np
from PIL import Image


def to_image(rows):
    a = (np.clip(rows.numpy(), 0, 1) * 255).astype(np.uint8)
    img = Image.fromarray(a)
    return img


def stitch_images(rows):
    """Returned through another helper, then converted: a PIL image all the same."""
    return to_image(rows).convert("L")
