"""Loss objects of a library module: the mean of the batch divided again by its size.

FDU-VTS/crowd-count@3022ad0 crowdcount/utils/loss.py `AVGLoss.__call__` (stop 59, v1-A):
`batch = len(output)` then `loss / (2 * batch)`; the object is handed to the training
function of another module, which calls it with the wrapped model's output.
"""

import torch.nn as nn


class HalvedMeanLoss:
    def __call__(self, output, target):
        batch = len(output)
        criterion = nn.MSELoss(reduction="mean")
        loss = criterion(output.squeeze(), target.squeeze())
        return loss / (2 * batch)


class StateSizedLoss:
    """Divided by a size the object holds (not a caller's batch): not this class."""

    def __init__(self, rows):
        self.rows = rows

    def __call__(self, output, target):
        return nn.functional.mse_loss(output, target) / len(self.rows)
