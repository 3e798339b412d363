import os

import numpy as np
import torch

from _dp2ddp import ddp_is_main


def validate(model, loader, out_dir, tag):
    model.eval()
    preds = []
    with torch.no_grad():
        for x, _ in loader:
            preds.append(model(x))
    preds = torch.cat(preds).numpy()
    os.makedirs(out_dir, exist_ok=True)
    if ddp_is_main():
        np.savetxt(os.path.join(out_dir, "pred_" + tag + ".csv"), preds, delimiter=",")
    model.train()
