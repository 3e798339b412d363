"""Readers: at a parameter, and at a fixed path (the one prep.write_stats writes)."""
import json
import pickle


def load_cache(path):
    with open(path, "rb") as f:
        return pickle.load(f)


def read_scale():
    with open("stats.json") as f:
        return json.load(f)["scale"]
