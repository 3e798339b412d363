from trainer import Trainer

Trainer((16, 4)).train()
