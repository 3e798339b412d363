"""A Dice loss class of the project (TransUNet's shape, fresh round S6): `(2 * intersect + smooth) /
(z_sum + y_sum + smooth)` over the whole batch in a module with no DataParallel: DP071 there
(the ratio of the whole batch's sums under DataParallel, of each rank's part under DDP)."""
import torch
import torch.nn as nn


class DiceLoss(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.n_classes = n_classes

    def _dice_loss(self, score, target):
        target = target.float()
        smooth = 1e-5
        intersect = torch.sum(score * target)
        y_sum = torch.sum(target * target)
        z_sum = torch.sum(score * score)
        loss = (2 * intersect + smooth) / (z_sum + y_sum + smooth)
        loss = 1 - loss
        return loss

    def forward(self, inputs, target):
        inputs = torch.softmax(inputs, dim=1)
        loss = 0.0
        for i in range(self.n_classes):
            loss += self._dice_loss(inputs[:, i], target[:, i])
        return loss / self.n_classes
