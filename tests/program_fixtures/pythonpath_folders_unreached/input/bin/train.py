"""The program's other modules live in sibling folders that a shell script puts on
PYTHONPATH (kaituoxu/X-Punctuator's path.sh); no sys.path edit in code."""
import torch

from loaders import build_loader
from solver import Solver

torch.manual_seed(0)


def main():
    loader = build_loader(batch_size=8)
    model = torch.nn.Linear(4, 1)
    model = torch.nn.DataParallel(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    Solver(loader, model, opt, "exp").train(epochs=2)


if __name__ == "__main__":
    main()
