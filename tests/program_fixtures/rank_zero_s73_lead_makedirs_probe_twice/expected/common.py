"""Saving helpers: the folder is made where it is missing, then the file written."""

import json
import os

from _dp2ddp import ddp_is_main


def save_json(folder, data, name):
    if not os.path.exists(folder):
        os.makedirs(folder, exist_ok=True)
    if ddp_is_main():
        with open(os.path.join(folder, "{}.json".format(name)), "w") as f:
            json.dump(data, f)
