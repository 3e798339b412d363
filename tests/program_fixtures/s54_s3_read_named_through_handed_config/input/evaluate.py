# Predictions saved under the configuration's folder, scored from there (MTL's
# save_model_predictions / eval_all_results).
import os


def save_predictions(p, out):
    os.makedirs(p["save_dir"], exist_ok=True)
    with open(os.path.join(p["save_dir"], "pred.txt"), "w") as f:
        f.write(" ".join("%.6f" % v for v in out))


def eval_all_results(p):
    with open(os.path.join(p["save_dir"], "pred.txt")) as f:
        return sum(float(v) for v in f.read().split())
