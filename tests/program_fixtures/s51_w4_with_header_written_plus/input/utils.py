import json
import os


def create_csv(model_dir, filename, headers):
    csv_path = os.path.join(model_dir, filename)
    if os.path.exists(csv_path):
        os.remove(csv_path)
    with open(csv_path, 'w+') as f:
        f.write(','.join(map(str, headers)))
    return csv_path


def save_params(model_dir, params):
    path = os.path.join(model_dir, 'params.json')
    with open(path, 'w') as f:
        json.dump(params, f)


def load_params(model_dir):
    _path = os.path.join(model_dir, "params.json")
    with open(_path, 'r') as f:
        return json.load(f)


def save_state(model_dir, *entries, filename='losses.csv'):
    csv_path = os.path.join(model_dir, filename)
    with open(csv_path, 'a+') as f:
        f.write('\n' + ','.join(map(str, entries)))
