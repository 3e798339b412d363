"""Saving helpers: the folder is made where it is missing, then the file written."""

import json
import os


def save_json(folder, data, name):
    if not os.path.exists(folder):
        os.makedirs(folder)
    with open(os.path.join(folder, "{}.json".format(name)), "w") as f:
        json.dump(data, f)
