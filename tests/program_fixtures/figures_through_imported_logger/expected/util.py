"""The program's own logger (DGCNN's IOStream shape): a method that prints and writes a
log file. A running figure handed to it from another module is shown as through print."""
from _dp2ddp import ddp_discard_path, ddp_is_main, ddp_print


class IOStream:
    def __init__(self, path):
        self.f = open(path if ddp_is_main() else ddp_discard_path(), "a")

    def cprint(self, text):
        self.show(text)
        self.f.write(text + "\n")
        self.f.flush()

    def show(self, text):
        ddp_print(text)

    def close(self):
        self.f.close()


def log(text):
    ddp_print(text)
