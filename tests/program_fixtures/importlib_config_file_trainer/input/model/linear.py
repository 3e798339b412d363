import torch


class Model(torch.nn.Linear):
    def __init__(self):
        super().__init__(1, 1)
