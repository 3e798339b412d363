import os

from _dp2ddp import ddp_discard_path, ddp_is_main, ddp_print


class Logger:
    def __init__(self, name, log_dir="."):
        self.log_file = open(
            os.path.join(log_dir, name) if ddp_is_main() else ddp_discard_path(), "a"
        )

    def _print(self, txt):
        ddp_print(txt)
        self.write_file(txt)

    def info(self, txt):
        self._print(txt)

    def write_file(self, txt):
        self.log_file.write(txt + "\n")
        self.log_file.flush()
