"""`.write()`/`.log()` of objects of the program's own classes (another module): Console's
write prints (its print goes to rank 0 in log_utils.py), History's log keeps a line (no
output): no DP080. Bar's write is a library's, and Echo's module is left as written: DP080
stays for both."""
import torch
import torch.nn as nn

from log_utils import Bar, Console, History
from par_utils import Echo


def main():
    model = nn.DataParallel(nn.Linear(2, 1))
    console = Console("> ")
    history = History()
    bar = Bar()
    echo = Echo()
    for step in range(3):
        loss = model(torch.ones(4, 2)).sum()
        console.write(f"step {step} loss {loss.item():.3f}")
        history.log(f"step {step}")
        bar.write(f"step {step}")
        echo.log(f"step {step}")


if __name__ == "__main__":
    main()
