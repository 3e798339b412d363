from _dp2ddp import ddp_setup
from trainer import Trainer

ddp_setup()


Trainer((16, 4)).train()
