# Hands on the set label_io builds: the entry's view sees a call of this module only.
import label_io
from label_io import read_set


def get_labels():
    return label_io.read_set(label_io.LINES)


def tag_set():
    tags = read_set(label_io.LINES)
    return tags


class Processor:
    def get_labels(self):
        return label_io.Reader().labels()
