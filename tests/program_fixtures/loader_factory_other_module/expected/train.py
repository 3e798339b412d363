"""thunlp/OpenNRE's layout (issue 22 left-over): the loader factory lives in another module
(nre/data_loader.py) than its calls (nre/framework.py), which keep the loaders on
`self.train_loader`, `self.val_loader`, `self.test_loader` of a framework class; the
evaluation scores predictions by position against the whole set. The training call is
sharded; the evaluation calls pass ddp_shard=False and their loaders stay whole (DP015)."""

import torch
from torch import nn

import nre
from _dp2ddp import DEVICE, ddp_is_main, ddp_setup

ddp_setup()


model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 2))
framework = nre.SentenceRE(model)
framework.train_model()
framework.load_state_dict(
    {"model." + k: v for k, v in torch.load("ckpt.pth", map_location=DEVICE)["state_dict"].items()}, strict=False
)
result = framework.eval_model(framework.test_loader)
if ddp_is_main():
    print("test acc", result["acc"])
