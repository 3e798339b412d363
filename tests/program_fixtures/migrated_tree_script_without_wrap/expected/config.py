from _dp2ddp import DEVICE

device = DEVICE
batch_size = 8
