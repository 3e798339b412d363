"""A config object whose stamp is a clock reading made at import."""
from datetime import datetime
from types import SimpleNamespace

from _dp2ddp import ddp_rank0_value

cfg = SimpleNamespace(lr=0.1, epochs=2, exp_path="./exp")
cfg.stamp = ddp_rank0_value(datetime.now).strftime("%m-%d_%H-%M-%S-%f")
