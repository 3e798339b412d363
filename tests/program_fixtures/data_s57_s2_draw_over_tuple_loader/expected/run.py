"""Entry of data_s57_s2_draw_over_tuple_loader: run -> exp class -> data factory.
E2E_DIGEST: the first step's mask; rank 0's and rank 1's rows together are the original's
(before: DP006, both ranks drew the same 4 rows for their own samples)."""

import torch

from _dp2ddp import ddp_is_main, ddp_setup
from exp.exp_impute import Exp

ddp_setup()


args = {"batch_size": 8, "lr": 0.1, "epochs": 2, "mask_rate": 0.5}
torch.manual_seed(2021)
exp = Exp(args)
model = exp.train()
weights = sum(float(p.detach().sum()) for p in model.parameters())
E2E_DIGEST = [round(v, 5) for v in exp.first_mask.flatten().tolist()]
if ddp_is_main():
    print("first mask", sum(E2E_DIGEST))
    print("weights {:.4f}".format(weights))
