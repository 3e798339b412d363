import torch

from episodes import episode_stream
from framework import Framework


def main():
    torch.manual_seed(0)
    model = torch.nn.DataParallel(torch.nn.Linear(2, 2))
    Framework(episode_stream(4)).train(model, 3)


if __name__ == "__main__":
    main()
