"""Folder helpers: the data is reached through a link to its current version."""
import os

from _dp2ddp import ddp_is_main


def point_to(version_dir, link_dir):
    os.makedirs(link_dir, exist_ok=True)
    current = os.path.join(link_dir, "current")
    if os.path.islink(current) and ddp_is_main():
        os.remove(current)
    if ddp_is_main():
        os.symlink(os.path.abspath(version_dir), current)
    return current
