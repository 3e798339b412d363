"""The program's own output objects (the class of ajbrock/BigGAN-PyTorch@9845943's
utils.MyLogger.log, written for this fixture): Console prints its lines, History only keeps
them, Bar inherits its write() from a library."""
import fancybars


class Console:
    def __init__(self, prefix):
        self.prefix = prefix

    def write(self, line):
        print(self.prefix + line)


class History:
    def __init__(self):
        self.lines = []

    def log(self, line):
        self.lines.append(line)


class Bar(fancybars.Bar):
    pass
