import torch
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup
from trainer_lib import Blur, Trainer

ddp_setup()


torch.manual_seed(0)
images = torch.arange(384.0).reshape(32, 3, 2, 2) / 400
diffusion = Blur()
diffusion = DistributedDataParallel(diffusion.to(DEVICE), device_ids=DEVICE_IDS)
trainer = Trainer(diffusion, images, batch_size=8, steps=4, every=2)
trainer.train()
ddp_print("weights %.4f" % trainer.model.module.conv.weight.sum().item())
