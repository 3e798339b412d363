from .Trainer import Trainer
from .heatmap import make_target
