"""The command line, parsed in its own module (heykeetae/Self-Attention-GAN@8714a54,
parameter.py): the same on every rank, since torchrun gives every process the same argv."""
import argparse


def str2bool(v):
    return v.lower() in ("true",)


def get_parameters():
    parser = argparse.ArgumentParser()
    parser.add_argument("--adv_loss", type=str, default="wgan-gp", choices=["wgan-gp", "hinge"])
    parser.add_argument("--total_step", type=int, default=4)
    parser.add_argument("--train", type=str2bool, default=True)
    return parser.parse_args()
