# The label set is built by another module's method (hertz-pj/BERT-BiLSTM-CRF-NER-pytorch
# @b1f70a7 utils.py:62 `get_labels`): a set filled from the training file's lines.
import os
import pickle

LINES = ["EU\tB-ORG", "rejects\tO", "German\tB-MISC", "call\tO", "Peter\tB-PER",
         "Blackburn\tI-PER", "BRUSSELS\tB-LOC", "European\tI-ORG", "Union\tI-MISC"]


class TagProcessor:
    def get_labels(self):
        labels = set()
        for line in LINES:
            tokens = line.strip().split("\t")
            if len(tokens) == 2:
                labels.add(tokens[1])
        if not labels:
            labels = {"O", "B", "I"}
        return labels

    def saved_labels(self, path):
        with open(path, "rb") as f:
            return pickle.load(f)

    def cached_labels(self, path):
        if os.path.exists(path):
            with open(path, "rb") as f:
                labels = pickle.load(f)
        else:
            labels = set(line.split("\t")[1] for line in LINES)
        return labels


def tag_set():
    return TagProcessor().get_labels()
