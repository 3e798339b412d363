"""A stand-in for tensorboardX (stop 54, helper v4): the test extras install no tensorboard.

Its SummaryWriter makes its log folder as tensorboardX 2.x's does (record_writer's
directory_check: `if not os.path.exists(path): os.makedirs(path)`, no exist_ok), with the
time between the test and the make widened to a second. On every rank but 0, making a
folder named `tbx_summary` (what rank_zero_s54_v4_tensorboardx_folder_race writes to) is
half a second late, so another rank's make lands inside rank 0's window: rank 0 fails
with FileExistsError where that make does not wait for rank 0's, as it did 1 run in 4 of
facebookresearch/fastMRI@16bfdd9's train_unet.py under torchrun x2 (a window of
microseconds there). Every event appends a line to events.txt there, naming the rank.
`add_graph(model, x)` traces the model as tensorboardX's does (torch.jit.trace; stop 61
v4-B: tracing a DDP wrap fails), and the writer works as a context manager.
"""

import os
import time
from typing import Any

if os.environ.get("RANK", "0") != "0":
    _makedirs = os.makedirs

    def _late_makedirs(name: Any, *args: Any, **kwargs: Any) -> None:
        if os.path.basename(os.path.normpath(str(name))) == "tbx_summary":
            time.sleep(0.5)
        _makedirs(name, *args, **kwargs)

    os.makedirs = _late_makedirs


class SummaryWriter:
    def __init__(
        self,
        logdir: str | None = None,
        comment: str = "",
        log_dir: str | None = None,
        **kwargs: Any,
    ) -> None:
        self.logdir = self.log_dir = logdir or log_dir or os.path.join("runs", "default" + comment)
        if not os.path.exists(self.logdir):
            time.sleep(1.0)
            os.makedirs(self.logdir)
        self.file_writer = self
        self._event("created")

    def get_logdir(self) -> str:
        return self.logdir

    def _event(self, what: str) -> None:
        with open(os.path.join(self.logdir, "events.txt"), "a") as events:
            events.write(f"rank{os.environ.get('RANK', '0')} {what}\n")

    def add_scalar(self, tag: str, value: float, step: int | None = None) -> None:
        self._event(f"scalar {tag} {step}")

    def add_graph(self, model: Any, input_to_model: Any = None, **kwargs: Any) -> None:
        import torch

        torch.jit.trace(model, input_to_model)  # type: ignore[no-untyped-call]
        self._event("graph")

    def __enter__(self) -> "SummaryWriter":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def close(self) -> None:
        self._event("closed")
