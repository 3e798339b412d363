"""The project's datasets by name: the entry picks one by `datasets.__dict__[name]`."""
from .pairs import pairs, pairs_seeded

__all__ = ["pairs", "pairs_seeded"]
