"""The trainer module imported by a %-formatted name (stop 46, v1-B:
icoz69/CEC-CVPR2021's `import_module('models.%s.fscil_trainer' % args.project)`): its static
start names the package whose modules the program may import."""
import argparse
import importlib

from _dp2ddp import ddp_setup

ddp_setup()


parser = argparse.ArgumentParser()
parser.add_argument("--kind", default="alpha")
args = parser.parse_args()
importlib.import_module("models.%s.trainer" % args.kind).Trainer().fit()
