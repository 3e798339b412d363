# Checkpoint and cache helpers of the program (round 37, quettabit/awd-lstm-lmkit@6510d06).
import os

import torch


class Tokens:
    @staticmethod
    def load(folder):
        cache = os.path.join(folder, "tokens.pt")
        if os.path.exists(cache):
            return torch.load(cache)
        tokens = torch.arange(40).float()
        torch.save(tokens, cache)
        return tokens


def keep_best(net, folder):
    torch.save(net.state_dict(), os.path.join(folder, "best.pt"))


def keep_latest(net, folder):
    torch.save(net.state_dict(), os.path.join(folder, "latest.pt"))
