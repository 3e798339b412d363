"""A one-process evaluation script beside the training entry (round 21,
YUNMI2/SegPosTag@77c9a8a's test.py): it imports the model's module and pins the GPU the
user picks (`--gpu 1`). Migrated with the folder, that pin becomes LOCAL_RANK: DP018 says
so (before: nothing, and `python evaluate.py --gpu 1` ran on GPU 0)."""

import argparse

import torch

from train import Tagger

parser = argparse.ArgumentParser()
parser.add_argument("--gpu", type=int, default=-1)
args = parser.parse_args()
model = Tagger()
model.load_state_dict(torch.load("tagger.pt"))
if args.gpu >= 0:
    torch.cuda.set_device(args.gpu)
    model.cuda()
print(model(torch.ones(1, 4)))
