"""An EasyDict-style config module (round 13 v2-E, gjy3035/C-3-Framework@f8e21fa config.py):
the run's name is a clock reading made at import."""
from datetime import datetime
from types import SimpleNamespace

from _dp2ddp import ddp_rank0_value

__C = SimpleNamespace()
cfg = __C
__C.LR = 0.1
__C.MAX_EPOCH = 2
now = ddp_rank0_value(datetime.now).strftime("%m-%d_%H-%M-%S-%f")
__C.EXP_NAME = now + "_tiny_" + str(__C.LR)
__C.EXP_PATH = "./exp"
