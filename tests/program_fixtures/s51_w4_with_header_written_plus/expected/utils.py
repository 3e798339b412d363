import json
import os

from _dp2ddp import ddp_barrier, ddp_discard_path, ddp_is_main


def create_csv(model_dir, filename, headers):
    csv_path = os.path.join(model_dir, filename)
    if os.path.exists(csv_path) and ddp_is_main():
        os.remove(csv_path)
    ddp_barrier()
    # dp2ddp: DP066
    with open(csv_path if ddp_is_main() else ddp_discard_path(), 'w+') as f:
        f.write(','.join(map(str, headers)))
    return csv_path


def save_params(model_dir, params):
    path = os.path.join(model_dir, 'params.json')
    if ddp_is_main():
        with open(path, 'w') as f:
            json.dump(params, f)
    ddp_barrier()


def load_params(model_dir):
    _path = os.path.join(model_dir, "params.json")
    with open(_path, 'r') as f:
        return json.load(f)


def save_state(model_dir, *entries, filename='losses.csv'):
    csv_path = os.path.join(model_dir, filename)
    # dp2ddp: DP066
    with open(csv_path if ddp_is_main() else ddp_discard_path(), 'a+') as f:
        f.write('\n' + ','.join(map(str, entries)))
