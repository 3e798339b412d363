"""A config object whose stamp is a clock reading made at import."""
from datetime import datetime
from types import SimpleNamespace

cfg = SimpleNamespace(lr=0.1, epochs=2, exp_path="./exp")
cfg.stamp = datetime.now().strftime("%m-%d_%H-%M-%S-%f")
