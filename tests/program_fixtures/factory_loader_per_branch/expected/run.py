import argparse

import torch

from _dp2ddp import ddp_setup
from exp import Exp

ddp_setup()


parser = argparse.ArgumentParser()
parser.add_argument("--task_name", default="forecast")
parser.add_argument("--batch_size", type=int, default=8)
parser.add_argument("--epochs", type=int, default=2)
args = parser.parse_args()
torch.manual_seed(0)
exp = Exp(args)
E2E_DIGEST = exp.train() + [exp.test()]
