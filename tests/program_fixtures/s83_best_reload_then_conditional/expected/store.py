# Checkpoint and cache helpers of the program (round 37, quettabit/awd-lstm-lmkit@6510d06).
import os

import torch

from _dp2ddp import DEVICE, ddp_barrier, ddp_is_main, ddp_rank0_value


class Tokens:
    @staticmethod
    def load(folder):
        cache = os.path.join(folder, "tokens.pt")
        if ddp_rank0_value(os.path.exists, cache):
            return torch.load(cache, map_location=DEVICE)
        tokens = torch.arange(40).float()
        if ddp_is_main():
            torch.save(tokens, cache)
        ddp_barrier()
        return tokens


def keep_best(net, folder):
    if ddp_is_main():
        torch.save(net.state_dict(), os.path.join(folder, "best.pt"))


def keep_latest(net, folder):
    if ddp_is_main():
        torch.save(net.state_dict(), os.path.join(folder, "latest.pt"))
    ddp_barrier()
