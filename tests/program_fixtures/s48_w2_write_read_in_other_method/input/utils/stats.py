import pickle


class Stats:
    def __init__(self, path):
        self.path = path
        self.rows = []

    def dump(self):
        pickle.dump(self.rows, open(self.path, "wb"))
        print("Dump statistics to {}".format(self.path))

    def load_state_dict(self, resume_step):
        self.rows = [r for r in pickle.load(open(self.path, "rb")) if r[0] <= resume_step]
