"""A stand-in for a library's token-classification model (our own code, the shape of
pytorch_pretrained_bert's BertForTokenClassification, lemonhu/NER-BERT-pytorch@5f7577b):
the encoder also computes a pooled output that token classification never uses, so the
pooler gets no gradient. Not migrated: copied next to the golden
model_wrap_library_model's expected.py as the library it imports."""

import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.layer = nn.Linear(width, width)
        self.pooler = nn.Linear(width, width)

    def forward(self, x):
        h = torch.tanh(self.layer(x))
        return h, torch.tanh(self.pooler(h[:, 0]))


class TokenTagger(nn.Module):
    def __init__(self, width, labels):
        super().__init__()
        self.encoder = Encoder(width)
        self.classifier = nn.Linear(width, labels)

    @classmethod
    def from_pretrained(cls, width, labels):
        torch.manual_seed(0)
        return cls(width, labels)

    def forward(self, x, labels=None):
        sequence, _ = self.encoder(x)
        logits = self.classifier(sequence)
        if labels is None:
            return logits
        return nn.functional.cross_entropy(logits.flatten(0, 1), labels.flatten())
