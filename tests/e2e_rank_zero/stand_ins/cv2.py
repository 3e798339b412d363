"""A stand-in for OpenCV (not installed here) for image_write_converted.py: imwrite writes
the array and records "pid path" in writes.log by os.write, which no rank-0 rule touches."""

import os

import numpy as np

COLOR_RGB2BGR = 4


def cvtColor(img, code):  # noqa: N802 (OpenCV's name)
    return np.ascontiguousarray(np.asarray(img)[..., ::-1])


def imwrite(path, img):
    with open(path, "wb") as f:
        np.save(f, np.asarray(img))
    fd = os.open("writes.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    os.write(fd, f"{os.getpid()} {path}\n".encode())
    os.close(fd)
    return True
