"""A vendored toolkit (Uason-Chen/CTR-GCN@e13d758's torchlight): the entry uses DictAction
only; the IO method that freezes parameters is never called by this program."""
import argparse


class DictAction(argparse.Action):
    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, dict(values))


class IO:
    def __init__(self, work_dir):
        self.work_dir = work_dir

    def load_weights(self, model, fix_weights=False):
        if fix_weights:
            for param in model.parameters():
                param.requires_grad = False
        return model
