"""A config dict whose run name is a clock reading made at import (round 13 v2-E's leftover:
the C-3-Framework shape with a dict item instead of an attribute)."""
from datetime import datetime

cfg = {"lr": 0.1, "epochs": 2, "exp_path": "./exp"}
cfg["exp_name"] = datetime.now().strftime("%m-%d_%H-%M-%S-%f") + "_tiny"
