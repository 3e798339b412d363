# An evaluation module that writes its report to the stream its caller hands in (CoNLL's
# conlleval.py `report(counts, out)`, vendored by hertz-pj/BERT-BiLSTM-CRF-NER-pytorch
# @b1f70a7): no call here binds `out`.
from _dp2ddp import ddp_is_main

def counts(pred, gold):
    return sum(int(p == g) for p, g in zip(pred, gold)), len(gold)


def report(correct_total, out):
    correct, total = correct_total
    if ddp_is_main():
        out.write("processed %d tokens; " % total)
        out.write("accuracy: %6.2f%%\n" % (100.0 * correct / total))


def summary(correct_total, out=None):
    correct, total = correct_total
    out.write("correct %d of %d\n" % (correct, total))
