import torch

from _dp2ddp import ddp_print, ddp_setup
from models import create_model
from options import parse

ddp_setup()


opt = parse(is_train=False)
model = create_model(opt)
ddp_print("inference", tuple(model.inference(torch.randn(2, 8)).shape))
