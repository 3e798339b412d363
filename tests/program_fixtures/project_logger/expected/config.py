import math

from _dp2ddp import ddp_print


def learning_rate(init, epoch):
    factor = 0
    if epoch > 60:
        factor = 1
    return init * math.pow(0.2, factor)


def get_hms(seconds):
    m, s = divmod(seconds, 60)
    h, m = divmod(m, 60)
    return h, m, s


def set_lr(optimizer, lr):
    for group in optimizer.param_groups:
        group["lr"] = lr


def show(message):
    ddp_print("| " + message)
