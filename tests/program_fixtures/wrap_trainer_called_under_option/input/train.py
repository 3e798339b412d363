import argparse

import trainer

parser = argparse.ArgumentParser()
parser.add_argument("--gan_type", default="WGAN")
parser.add_argument("--multi_gpu", type=bool, default=True)
parser.add_argument("--epochs", type=int, default=2)
opt = parser.parse_args()

if __name__ == "__main__":
    if opt.gan_type == "WGAN":
        trainer.wgan_trainer(opt)
    if opt.gan_type == "LSGAN":
        trainer.lsgan_trainer(opt)
