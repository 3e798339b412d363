"""A config class stamps the run in a method and hands its attributes on by key
(Debatrix/AquulaCam@28b2f97 util.py LoadConfig, stop 57 v1-C): another module's
`config["run_name"]` reads `self.run_name`, set from the clock. Each rank's clock named its
own run folder: the stamp must be rank 0's reading on every rank."""
import time


class RunConfig:
    def __init__(self):
        self.run_name = "demo"
        self.epochs = 2
        self.batch = 8

    def finish(self):
        stamp = time.strftime("%H%M%S") + "_" + str(time.time_ns() % 1000000)
        self.run_name = stamp + "_" + self.run_name

    def __getitem__(self, key):
        if key not in self.__dict__:
            raise KeyError(key)
        return self.__dict__.get(key)
