"""A config dict whose run name is a clock reading made at import, stored under a key known
only at run time (stop 62 s1's leftover: `cfg[KEY] = ...`, KEY not a literal)."""
from datetime import datetime

from _dp2ddp import ddp_rank0_value

cfg = {"lr": 0.1, "epochs": 2, "exp_path": "./exp"}
KEY = "exp_" + "name"
cfg[KEY] = ddp_rank0_value(datetime.now).strftime("%m-%d_%H-%M-%S-%f") + "_tiny"
