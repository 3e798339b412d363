import importlib


def initialize(module_cfg, pass_args=True):
    module = importlib.import_module(module_cfg["module"])
    if pass_args:
        return getattr(module, module_cfg["main"])(**module_cfg["args"])
    return getattr(module, module_cfg["main"])
