import time


class Config:
    pass


cfg = Config()
cfg.MAX_EPOCH = 3
cfg.EXP_NAME = time.strftime("%m-%d_%H-%M")
