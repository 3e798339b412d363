from common import *
from nets import *

# isort: split
from _dp2ddp import ddp_setup

ddp_setup()


model = build()
loader = loader_for(make_data(), 16)
for epoch in range(2):
    loader.sampler.set_epoch(epoch)
    for x, y in loader:
        step(model, x, y)
    report(epoch)
