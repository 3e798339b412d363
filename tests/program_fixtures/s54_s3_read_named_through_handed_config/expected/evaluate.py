# Predictions saved under the configuration's folder, scored from there (MTL's
# save_model_predictions / eval_all_results).
import os

from _dp2ddp import ddp_is_main


def save_predictions(p, out):
    os.makedirs(p["save_dir"], exist_ok=True)
    if ddp_is_main():
        # dp2ddp: DP054
        with open(os.path.join(p["save_dir"], "pred.txt"), "w") as f:
            f.write(" ".join("%.6f" % v for v in out))


def eval_all_results(p):
    with open(os.path.join(p["save_dir"], "pred.txt")) as f:
        return sum(float(v) for v in f.read().split())
