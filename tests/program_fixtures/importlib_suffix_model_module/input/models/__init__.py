import importlib


def create_model(opt):
    module = importlib.import_module("models." + opt.model + "_model")
    return module.Model(opt)
