import importlib


def import_class(dotted):
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)
