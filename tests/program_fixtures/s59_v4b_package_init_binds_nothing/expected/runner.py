"""The entry hands over to core.train.train_net, whose wrapped model is set up by
`model.apply(utils.models.init_weights)`: a submodule's function reached through its
package, whose `utils/__init__.py` binds nothing (hzxie/Pix2Vox@0596d5e's shape)."""

import sys

from _dp2ddp import ddp_setup
from core.test import test_net
from core.train import train_net

ddp_setup()


if __name__ == "__main__":
    if sys.argv[1:] == ['--test']:
        test_net()
    else:
        train_net(2)
