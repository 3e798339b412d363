"""thunlp/OpenNRE's layout (issue 22 left-over): the loader factory lives in another module
(nre/data_loader.py) than its calls (nre/framework.py), which keep the loaders on
`self.train_loader`, `self.val_loader`, `self.test_loader` of a framework class; the
evaluation scores predictions by position against the whole set. The training call is
sharded; the evaluation calls pass ddp_shard=False and their loaders stay whole (DP015).
(OpenNRE's example then reloads the checkpoint train_model() saved: a rank-0 save in one
module, a load in another, which gets no barrier yet: left out here, see real-world.md.)"""

import torch
from torch import nn

import nre
from _dp2ddp import ddp_is_main, ddp_setup

ddp_setup()


model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 2))
framework = nre.SentenceRE(model)
framework.train_model()
result = framework.eval_model(framework.test_loader)
if ddp_is_main():
    print("test acc", result["acc"])
