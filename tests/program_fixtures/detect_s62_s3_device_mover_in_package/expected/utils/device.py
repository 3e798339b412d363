"""A device mover named ...DataParallel... on `object` alone (VIPL-SLP/VAC_CSLR@71f3e03's
utils/device.py): no DataParallel, so main.py's `utils.GpuDataParallel()` gets no DP002."""
import torch


class GpuDataParallel(object):
    def __init__(self):
        self.output_device = "cpu"

    def set_device(self, device):
        self.output_device = "cpu" if device is None else device

    def data_to_device(self, data):
        return data.to(self.output_device)
