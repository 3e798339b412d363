# The configuration built from a file (SimonVandenhende/Multi-Task-Learning-PyTorch@ed3d9ac
# utils/config.py's create_config, reading YAML): a dict whose "save_dir" names the folder.
import json


def create_config(path):
    with open(path) as f:
        cfg = json.load(f)
    cfg["save_dir"] = cfg["root"] + "/results"
    return cfg
