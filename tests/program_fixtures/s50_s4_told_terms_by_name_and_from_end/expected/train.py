from _dp2ddp import ddp_setup
from vae.trainer import main

ddp_setup()


if __name__ == "__main__":
    main()
