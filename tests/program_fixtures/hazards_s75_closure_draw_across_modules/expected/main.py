from _dp2ddp import ddp_setup
from trainer import Trainer

ddp_setup()


if __name__ == "__main__":
    Trainer().train()
