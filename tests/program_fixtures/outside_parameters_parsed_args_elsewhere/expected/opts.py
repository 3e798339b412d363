import argparse


def parse_opts():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="train")
    parser.add_argument("--lr", type=float, default=0.5)
    args = parser.parse_args()
    return args
