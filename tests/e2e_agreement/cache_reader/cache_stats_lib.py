"""Reads the statistics cache_reader_lib.write_stats() writes, at the same fixed path."""

import json


def read_stats():
    with open("reader_stats.json") as f:
        return json.load(f)
