"""thunlp/OpenNRE's layout (issue 22 left-over): the loader factory lives in another module
(nre/data_loader.py) than its calls (nre/framework.py), which keep the loaders on
`self.train_loader`, `self.val_loader`, `self.test_loader` of a framework class; the
evaluation scores predictions by position against the whole set. The training call is
sharded; the evaluation calls pass ddp_shard=False and their loaders stay whole (DP015).
Then, as OpenNRE's example does, the entry reloads the checkpoint train_model() saved in
nre/framework.py (on rank 0 once migrated): a ddp_barrier() goes before the load, or rank 1
can read a half-written (or the previous epoch's) file (issue 16)."""

import torch
from torch import nn

import nre
from _dp2ddp import DEVICE, ddp_barrier, ddp_print, ddp_setup

ddp_setup()


model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 2))
framework = nre.SentenceRE(model)
framework.train_model()
ddp_barrier()
framework.model.load_state_dict(
    torch.load("ckpt.pth", map_location=DEVICE)["state_dict"]
)
result = framework.eval_model(framework.test_loader)
ddp_print("test acc", result["acc"])
E2E_DIGEST = [float(p.sum()) for p in framework.model.parameters()]
