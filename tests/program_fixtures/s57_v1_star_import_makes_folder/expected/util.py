"""Helpers every module takes with `from util import *`: os and torch come with them."""
import os

import torch


def run_folder(name):
    return os.path.join(os.curdir, "run_" + name)


def weights_sum(model):
    return sum(p.sum().item() for p in model.parameters())
