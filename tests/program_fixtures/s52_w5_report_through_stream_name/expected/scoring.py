# An evaluation script vendored by the program (CoNLL's conlleval.py in
# hertz-pj/BERT-BiLSTM-CRF-NER-pytorch@b1f70a7): its report is written through a name
# that holds sys.stdout, not by print.
import sys

from _dp2ddp import ddp_is_main


def counts(pred, gold):
    return sum(int(p == g) for p, g in zip(pred, gold)), len(gold)


def report(correct_total, out=None):
    if out is None:
        out = sys.stdout
    correct, total = correct_total
    if ddp_is_main():
        out.write("processed %d tokens; " % total)
        out.write("accuracy: %6.2f%%\n" % (100.0 * correct / total))
