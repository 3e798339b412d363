"""Two experiments, as an experiment framework's `--itr` runs them: the first stops early,
the second trains one epoch, so its best checkpoint is written right before the reload."""

from _dp2ddp import ddp_print, ddp_setup
from exp.exp_main import Exp

ddp_setup()


args = {"batch_size": 4, "shuffle": False, "checkpoints": "./checkpoints/", "patience": 1}
E2E_DIGEST = []
for ii, (epochs, lr) in enumerate(((12, 0.1), (1, 0.05))):
    args.update(epochs=epochs, lr=lr)
    setting = "run_{}".format(ii)
    exp = Exp(args)
    model = exp.train(setting)
    rows, mse = exp.test(setting)
    weights = sum(float(p.detach().sum()) for p in model.parameters())
    E2E_DIGEST += [exp.stopped, rows, round(mse, 5), round(weights, 5)]
ddp_print("final", E2E_DIGEST)
