from _dp2ddp import ddp_print

class Config:
    def __init__(self):
        self.lr = 0.1
        self.epochs = 2
        self.path = "run"

    def print_params(self, prtf=ddp_print):
        prtf("Parameters:")
        for attr, value in sorted(vars(self).items()):
            prtf("{}={}".format(attr.upper(), value))
