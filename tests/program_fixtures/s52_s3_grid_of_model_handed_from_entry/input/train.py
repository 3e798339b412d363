import torch
from torch import nn

from trainer_lib import Blur, Trainer

torch.manual_seed(0)
images = torch.arange(384.0).reshape(32, 3, 2, 2) / 400
diffusion = Blur()
diffusion = nn.DataParallel(diffusion)
trainer = Trainer(diffusion, images, batch_size=8, steps=4, every=2)
trainer.train()
print("weights %.4f" % trainer.model.module.conv.weight.sum().item())
