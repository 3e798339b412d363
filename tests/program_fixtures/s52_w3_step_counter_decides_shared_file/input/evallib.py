# The evaluation helpers of wujiyang/Face_Pytorch@3afd941 eval_lfw.py, in brief: features of
# an evaluation set written to a file, and the file read back for the figure.
import numpy as np
import torch


def extract(path, net, loader):
    feats = []
    with torch.no_grad():
        for (x,) in loader:
            feats.append(net(x))
    np.save(path, torch.cat(feats).numpy())


def evaluate(path):
    return float(np.load(path).sum())
