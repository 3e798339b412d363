import pickle

from _dp2ddp import ddp_discard_path, ddp_is_main, ddp_print


class Stats:
    def __init__(self, path):
        self.path = path
        self.rows = []

    def dump(self):
        # dp2ddp: DP054
        pickle.dump(
            self.rows, open(self.path if ddp_is_main() else ddp_discard_path(), "wb")
        )
        ddp_print("Dump statistics to {}".format(self.path))

    def load_state_dict(self, resume_step):
        self.rows = [r for r in pickle.load(open(self.path, "rb")) if r[0] <= resume_step]
