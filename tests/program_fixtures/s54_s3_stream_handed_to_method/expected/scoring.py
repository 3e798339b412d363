# A scorer reporting to the stream its caller hands a method, and a logger keeping the
# stream it is built with (conlleval.py's report, hertz-pj/BERT-BiLSTM-CRF-NER-pytorch
# @b1f70a7, as a class's methods).
from _dp2ddp import ddp_is_main

class Scorer:
    def __init__(self):
        self.correct = 0
        self.total = 0

    def update(self, correct, total):
        self.correct += correct
        self.total += total

    def report(self, out):
        if ddp_is_main():
            out.write("processed %d tokens; accuracy: %6.2f%%\n"
                      % (self.total, 100.0 * self.correct / self.total))

    def summary(self, out, tag="final"):
        out.write("%s %d/%d\n" % (tag, self.correct, self.total))


class Logger:
    def __init__(self, stream, prefix=""):
        self.stream = stream
        self.prefix = prefix

    def write(self, msg):
        if ddp_is_main():
            self.stream.write(self.prefix + msg + "\n")
            self.stream.flush()
