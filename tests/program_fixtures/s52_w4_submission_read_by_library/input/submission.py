"""A submission written by one function and read by another through a library reader the
barrier rule does not list (qiuqiangkong/sound_event_detection_dcase2017_task4's
utils/utilities.py write_submission / official_evaluate shape)."""
import os
import time

import numpy as np

#: A slow disk on rank 0 when launched by torchrun (the original runs with no RANK).
DELAY = 1.0 if os.environ.get("RANK") == "0" else 0.0


def write_submission(rows, submission_path):
    time.sleep(DELAY)
    f = open(submission_path, "w")
    for row in rows:
        f.write("%.6f\n" % row)


def official_evaluate(prediction_path):
    return float(np.fromfile(prediction_path, sep="\n").sum())


def write_scores(rows, path):
    time.sleep(DELAY)
    f = open(path, "w")
    for row in rows:
        f.write("%.6f\n" % row)
    f.close()


def rescore(rows, path):
    write_scores(rows, path)
    return float(np.fromfile(path, sep="\n").max())
