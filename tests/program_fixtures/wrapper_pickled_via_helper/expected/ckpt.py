"""Checkpoint helpers that pickle the model object whole (class W2, foamliu/Transformer's
utils.save_checkpoint): the caller's wrapped model must be handed over as its `.module`."""

import pickle

import torch

from _dp2ddp import ddp_is_main


def save_checkpoint(epoch, model, optimizer, path="checkpoint.tar"):
    # the whole objects go into the checkpoint, not state_dicts
    state = {"epoch": epoch, "model": model, "optimizer": optimizer}
    if ddp_is_main():
        torch.save(state, path)


def save_weights(model, path):
    # reads the weights and pickles the object: .module answers both the same
    state = {}
    state["weights"] = model.state_dict()
    state["model"] = model
    if ddp_is_main():
        with open(path, "wb") as f:
            pickle.dump(state, f)


def save_and_score(model, x, path):
    # also runs the model: passing .module would change what it does (DP070 at the call)
    if ddp_is_main():
        torch.save([model, path], path)
    return model(x).sum().item()
