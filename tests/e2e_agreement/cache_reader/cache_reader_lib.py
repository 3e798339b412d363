"""Reads a cache file at the path its caller names (the reader of cache_reader/train.py)."""

import pickle


def load_cache(path):
    with open(path, "rb") as f:
        return pickle.load(f)


class Vocab:
    def __init__(self, path):
        with open(path) as f:
            self.words = f.read().split()
