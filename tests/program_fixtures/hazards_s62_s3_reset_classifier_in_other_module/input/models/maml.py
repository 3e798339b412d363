"""MAML.reset_classifier() calls `self.classifier.reset_parameters()`, a method of a class
of another module that only re-initialises (shirleyzhu233/PyTorch-MAML@eee3fe3, round 14
v4-C): read through the program's classes together, it runs no layer, so no DP108 at
`model.module.reset_classifier()`. `confidence()` runs the classifier's `scores()`, which
runs its linear layer: DP108 stays there."""
import torch.nn as nn

from models.classifiers import LogisticClassifier


class MAML(nn.Module):
    def __init__(self, in_dim, n_way):
        super().__init__()
        self.encoder = nn.Linear(in_dim, 8)
        self.classifier = LogisticClassifier(8, n_way)

    def reset_classifier(self):
        self.classifier.reset_parameters()

    def confidence(self, x):
        return self.classifier.scores(self.encoder(x).relu()).max(1)[0].mean()

    def forward(self, x):
        return self.classifier(self.encoder(x).relu())
