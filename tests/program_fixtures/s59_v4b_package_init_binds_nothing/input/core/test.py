import torch
import torch.nn as nn

import utils.models


def test_net(model=None):
    if model is None:
        model = utils.models.build()
        if torch.cuda.is_available():
            model = nn.DataParallel(model).cuda()
    model.eval()
    with torch.no_grad():
        return model(torch.ones(4, 4)).sum().item()
