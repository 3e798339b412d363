"""ZhengkunTian/OpenTransformer@802750a's shape (class v2-B of stop 40): the entry parses
torch.distributed.launch's `-r/--local_rank` and hands it to a trainer of another module,
whose DDP path takes the rank from it. Under torchrun the argument keeps its default on
every process: DP003 names the entry's line, not only the general rule."""
import argparse

from otrans.trainer import Trainer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", "--ngpu", type=int, default=1)
    parser.add_argument("-p", "--parallel_mode", type=str, default="dp")
    parser.add_argument("-r", "--local_rank", type=int, default=0)
    args = parser.parse_args()
    Trainer(args.parallel_mode, args.ngpu, args.local_rank).train()


if __name__ == "__main__":
    main()
