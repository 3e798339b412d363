"""Loads the checkpoint train.py named and saved (PatrickHua/SimSiam's linear_eval)."""

import torch
import torch.nn as nn


def main(args):
    head = nn.Linear(4, 1)
    head.load_state_dict(torch.load(args.eval_from))
    print("evaluated", args.eval_from.startswith("ckpt_"))
