"""A one-process evaluation script beside the training entry (round 21,
YUNMI2/SegPosTag@77c9a8a's test.py): it imports the model's module and pins the GPU the
user picks (`--gpu 1`). Migrated with the folder, that pin becomes LOCAL_RANK: DP018 says
so (before: nothing, and `python evaluate.py --gpu 1` ran on GPU 0)."""

import argparse

import torch

from _dp2ddp import DEVICE, LOCAL_RANK, ddp_print, ddp_setup
from train import Tagger

ddp_setup()


parser = argparse.ArgumentParser()
parser.add_argument("--gpu", type=int, default=-1)
args = parser.parse_args()
model = Tagger()
model.load_state_dict(torch.load("tagger.pt", map_location=DEVICE))
if args.gpu >= 0:
    # dp2ddp: DP018 device index pinned by hand
    torch.cuda.set_device(LOCAL_RANK)
    model.to(DEVICE)
ddp_print(model(torch.ones(1, 4)))
