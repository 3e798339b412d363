import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--test_only", action="store_true")
parser.add_argument("--resume", action="store_true")
parser.add_argument("--epochs", type=int, default=2)
args = parser.parse_args()
