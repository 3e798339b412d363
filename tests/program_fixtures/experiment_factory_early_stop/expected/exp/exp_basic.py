"""The experiment's base class, in a module of its own: it keeps the arguments and builds
the model (the iteration count of train()'s epoch loop comes from here)."""


class ExpBasic:
    def __init__(self, args):
        self.args = args
        self.model = self._build_model()

    def _build_model(self):
        raise NotImplementedError
