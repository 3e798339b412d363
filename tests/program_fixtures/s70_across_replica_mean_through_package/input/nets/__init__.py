from .heads import LossHead, MeanHead
