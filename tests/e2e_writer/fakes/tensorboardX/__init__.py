"""A stand-in for tensorboardX's SummaryWriter: the test extras do not install tensorboard.

Like the real one it creates its log directory. Every call appends a line to events.txt
there, naming the rank that made it, so a test can tell that only rank 0 wrote events.
"""

import os


class SummaryWriter:
    def __init__(self, logdir=None, comment="", log_dir=None, **kwargs):
        self.logdir = self.log_dir = logdir or log_dir or os.path.join("runs", "default" + comment)
        os.makedirs(self.logdir, exist_ok=True)
        self.file_writer = self
        self._event("created")

    def get_logdir(self):
        return self.logdir

    def _event(self, what):
        with open(os.path.join(self.logdir, "events.txt"), "a") as events:
            events.write(f"rank{os.environ.get('RANK', '0')} {what}\n")

    def add_scalar(self, tag, value, step=None):
        self._event(f"scalar {tag} {step}")

    def add_histogram(self, tag, values, step=None):
        self._event(f"histogram {tag} {step}")

    def add_text(self, tag, text, step=None):
        self._event(f"text {tag} {text}")

    def close(self):
        self._event("closed")

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()
