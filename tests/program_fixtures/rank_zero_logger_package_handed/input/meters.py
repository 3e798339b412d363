"""The meters of the program: they log through the logging package they are handed."""


class LogCollector:
    def __init__(self):
        self.vals = {}

    def update(self, key, value):
        self.vals[key] = value

    def tb_log(self, tb_logger, step):
        for key, value in self.vals.items():
            tb_logger.log_value(key, value, step=step)
