import os

import torch


def logger_txt(log_file, epoch, score):
    # appends only: no rank reads this file back
    with open(log_file, "a") as f:
        f.write("epoch %d loss %.4f\n" % (epoch + 1, score))


def update_model(net, epoch, exp_path, score, record, log_file=None):
    if score < record["best"]:
        record["best"] = score
        if log_file is not None:
            logger_txt(log_file, epoch, score)
        torch.save(net.state_dict(), os.path.join(exp_path, "best.pth"))
    torch.save({"net": net.state_dict(), "epoch": epoch}, os.path.join(exp_path, "latest.pth"))
    return record

