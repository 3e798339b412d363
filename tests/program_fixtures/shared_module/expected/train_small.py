from _dp2ddp import ddp_setup
from shared import build, fit

ddp_setup()


if __name__ == "__main__":
    fit(build(), epochs=1)
