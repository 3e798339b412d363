"""The program's own logger (DGCNN's IOStream shape): a method that prints and writes a
log file. A running figure handed to it from another module is shown as through print."""


class IOStream:
    def __init__(self, path):
        self.f = open(path, "a")

    def cprint(self, text):
        self.show(text)
        self.f.write(text + "\n")
        self.f.flush()

    def show(self, text):
        print(text)

    def close(self):
        self.f.close()


def log(text):
    print(text)
