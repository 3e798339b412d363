"""The entry imports its trainer by executing an import statement it builds at run time
(`exec("from " + package + " import " + name + " as module")`, facebookresearch/
pytorch_GAN_zoo's loadmodule): discovery cannot name the module, and the trainer that
wraps with DataParallel is left as it is: DP034 at the exec (before: "1 file unchanged",
nothing said, and under torchrun every rank ran the whole DataParallel program). Issue 28,
round 20 (stop 67)."""
import sys


def load(package, name):
    statement = "from " + package + " import " + name + " as module"
    exec(statement)
    return eval("module")


if __name__ == "__main__":
    Trainer = load(sys.argv[1], "Trainer")  # `python train.py trainers.gan`
    Trainer().train()
