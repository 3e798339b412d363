# Reads the tag set of a tab-separated file (the reader of a processor, hertz-pj/
# BERT-BiLSTM-CRF-NER-pytorch@b1f70a7 utils.py:62's shape, one module further).
LINES = ["EU\tB-ORG", "rejects\tO", "German\tB-MISC", "call\tO", "Peter\tB-PER",
         "Blackburn\tI-PER", "BRUSSELS\tB-LOC", "European\tI-ORG", "Union\tI-MISC"]


def read_set(lines):
    labels = set()
    for line in lines:
        labels.add(line.strip().split("\t")[1])
    return labels


class Reader:
    def labels(self):
        return {line.split("\t")[1] for line in LINES}
