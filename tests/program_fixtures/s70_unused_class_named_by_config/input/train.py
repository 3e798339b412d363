"""The model's class is named by a config (a string) and looked up by getattr on the module
handed to `init_obj` (the pytorch-template's ConfigParser, emadeldeen24/AttnSleep@6b4d266's
`config.init_obj('arch', module_arch)`, issue 28 round 23): no class of nets/models.py is
built by name in the code, yet every one may be. Before: the picked class's unused
projection went unsaid (DP041's "classes the program builds" left it out), DDP failed at
the second step."""

import torch
from torch.utils.data import DataLoader, TensorDataset

import nets.models as module_arch
from trainer import Trainer

CONFIG = {"arch": {"type": "SleepNet", "args": {}}}


def init_obj(name, module, *args):
    entry = CONFIG[name]
    return getattr(module, entry["type"])(*args, **entry["args"])


def main():
    torch.manual_seed(0)
    model = init_obj("arch", module_arch)
    data = TensorDataset(torch.randn(32, 4, 6), torch.randint(0, 2, (32,)))
    loader = DataLoader(data, batch_size=8, shuffle=False)
    trained = Trainer(model, loader).train(2)
    print("weights %.6f" % sum(p.sum().item() for p in trained.parameters()))


if __name__ == "__main__":
    main()
