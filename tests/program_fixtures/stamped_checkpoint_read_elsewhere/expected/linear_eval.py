"""Loads the checkpoint another module named and saved (PatrickHua/SimSiam's linear_eval,
also a script of its own: its `main` is not main.py's)."""

import argparse

import torch
import torch.nn as nn

from _dp2ddp import DEVICE, ddp_print


def main(args):
    head = nn.Linear(4, 1)
    head.load_state_dict(torch.load(args.eval_from, map_location=DEVICE))
    ddp_print("evaluated", args.eval_from)


if __name__ == "__main__":
    main(argparse.Namespace(eval_from="ckpt.pth"))
