import os


class Logger:
    def __init__(self, name, log_dir="."):
        self.log_file = open(os.path.join(log_dir, name), "a")

    def _print(self, txt):
        print(txt)
        self.write_file(txt)

    def info(self, txt):
        self._print(txt)

    def write_file(self, txt):
        self.log_file.write(txt + "\n")
        self.log_file.flush()
