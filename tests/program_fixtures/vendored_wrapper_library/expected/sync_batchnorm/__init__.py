from .batchnorm import convert_model
from .replicate import DataParallelWithCallback, patch_replication_callback
