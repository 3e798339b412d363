import argparse


def parse(is_train):
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpu_ids", default="0")
    parser.add_argument("--fp16", action="store_true")
    parser.add_argument("--niter", type=int, default=2)
    opt = parser.parse_args()
    opt.isTrain = is_train
    opt.gpu_ids = [int(i) for i in opt.gpu_ids.split(",") if int(i) >= 0]
    return opt
