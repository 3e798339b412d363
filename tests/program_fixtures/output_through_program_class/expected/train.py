"""`.write()`/`.log()` of objects of the program's own classes (another module): Console's
write prints (its print goes to rank 0 in log_utils.py), History's log keeps a line (no
output): no DP080. Bar's write is a library's, and Echo's module is left as written: DP080
stays for both."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_setup
from log_utils import Bar, Console, History
from par_utils import Echo


def main():
    ddp_setup()
    model = DistributedDataParallel(nn.Linear(2, 1).to(DEVICE), device_ids=DEVICE_IDS)
    console = Console("> ")
    history = History()
    bar = Bar()
    echo = Echo()
    for step in range(3):
        loss = model(torch.ones(4, 2)).sum()
        console.write(f"step {step} loss {loss.item():.3f}")
        history.log(f"step {step}")
        # dp2ddp: DP080 a library object's write/print/log runs on every rank
        bar.write(f"step {step}")
        # dp2ddp: DP080 a library object's write/print/log runs on every rank
        echo.log(f"step {step}")


if __name__ == "__main__":
    main()
