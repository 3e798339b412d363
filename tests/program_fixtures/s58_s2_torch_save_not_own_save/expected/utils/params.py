import json

from _dp2ddp import ddp_barrier, ddp_is_main


class Params:
    def __init__(self, json_path):
        with open(json_path) as f:
            self.__dict__.update(json.load(f))

    def save(self, json_path):
        if ddp_is_main():
            with open(json_path, "w") as f:
                json.dump(self.__dict__, f, indent=4)
        ddp_barrier()
