from .device import GpuDataParallel
