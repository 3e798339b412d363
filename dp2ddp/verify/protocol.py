"""What the harness and the runner inside the user's processes agree on.

The runner is started as `python -m dp2ddp.verify.runner RUNNER_OPTIONS -- SCRIPT ARGS...`
and leaves its results in `<out>/rank<R>/`; this module names those files and builds and
parses the runner's options, so that both sides stay in step. Stdlib only: it is imported
inside the user's processes.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

RECORD = "record.json"  # everything but tensors (written when the run stops or ends)
PROGRESS = "progress.json"  # rewritten after every step: survives a kill
TENSORS = "tensors.f64"  # initial parameters, per-step updates (rank 0 / original only; arrays.py)
STDOUT = "stdout.log"
STDERR = "stderr.log"
FINAL = "final.f64"  # --to-end: the final parameters (rank 0 / original only; arrays.py)
STACK = "stack.txt"  # the Python stacks faulthandler dumps on STACK_SIGNAL (hang diagnosis)
PID = "pid.json"  # {"pid", "main_thread"}: written once the stack handler is installed

#: Record statuses.
STOPPED = "stopped"  # reached the requested steps and stopped the script
COMPARED = "compared"  # --to-end: reached the requested steps, the script goes on
FINISHED = "finished"  # the script ended on its own before the requested steps
ERROR = "error"  # the script raised or exited non-zero
HARNESS_ERROR = "harness_error"  # dp2ddp's instrumentation itself failed

#: The signal on which every runner dumps its threads' Python stacks into STACK (a timeout).
STACK_SIGNAL_NAME = "SIGUSR1"


def rank_dir_name(rank: int) -> str:
    return f"rank{rank}"


@dataclass(frozen=True)
class RunnerOptions:
    """Options of one runner process; the same for the original and every DDP rank."""

    out: str
    steps: int
    seed: int
    #: Value of `__file__` and directory put first on sys.path: the user's script, also when
    #: the code executed is an in-memory migration written to a temporary file.
    file_attr: str
    no_dropout: bool = False
    freeze_batchnorm: bool = False
    #: Multiply DataLoader batch sizes (the original under --per-process-batch).
    scale_batch: int = 1
    #: --to-end: after the compared steps the script runs on to its natural end.
    to_end: bool = False
    #: The original on CPU: BatchNorm normalises each of DataParallel's W chunks (probes).
    batchnorm_chunks: int = 1
    #: The original on CPU: other norms keep the running statistics of chunk 0 (probes).
    norm_chunks: int = 1
    #: Dropout aligned with DataParallel's chunks: W in the original, 1 in the ranks, 0 as is.
    dropout_chunks: int = 0
    #: Aligned dropout: a call that cannot be aligned draws anyway (instead of off).
    keep_dropout: bool = False

    def argv(self, script: str, script_args: tuple[str, ...]) -> list[str]:
        args = [
            "--out", self.out,
            "--steps", str(self.steps),
            "--seed", str(self.seed),
            "--file-attr", self.file_attr,
            "--scale-batch", str(self.scale_batch),
            "--batchnorm-chunks", str(self.batchnorm_chunks),
            "--norm-chunks", str(self.norm_chunks),
            "--dropout-chunks", str(self.dropout_chunks),
        ]  # fmt: skip
        if self.no_dropout:
            args.append("--no-dropout")
        if self.freeze_batchnorm:
            args.append("--freeze-batchnorm")
        if self.to_end:
            args.append("--to-end")
        if self.keep_dropout:
            args.append("--keep-dropout")
        return [*args, "--", script, *script_args]


def parse_runner_argv(argv: list[str]) -> tuple[RunnerOptions, str, list[str]]:
    """Inverse of RunnerOptions.argv: (options, script, script arguments)."""
    if "--" not in argv:
        raise SystemExit("dp2ddp.verify.runner: missing `-- SCRIPT`")
    cut = argv.index("--")
    parser = argparse.ArgumentParser(prog="dp2ddp.verify.runner")
    parser.add_argument("--out", required=True)
    parser.add_argument("--steps", type=int, required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--file-attr", required=True)
    parser.add_argument("--scale-batch", type=int, default=1)
    parser.add_argument("--no-dropout", action="store_true")
    parser.add_argument("--freeze-batchnorm", action="store_true")
    parser.add_argument("--to-end", action="store_true")
    parser.add_argument("--batchnorm-chunks", type=int, default=1)
    parser.add_argument("--norm-chunks", type=int, default=1)
    parser.add_argument("--dropout-chunks", type=int, default=0)
    parser.add_argument("--keep-dropout", action="store_true")
    ns = parser.parse_args(argv[:cut])
    rest = argv[cut + 1 :]
    if not rest:
        raise SystemExit("dp2ddp.verify.runner: missing SCRIPT after `--`")
    options = RunnerOptions(
        out=ns.out,
        steps=ns.steps,
        seed=ns.seed,
        file_attr=ns.file_attr,
        no_dropout=ns.no_dropout,
        freeze_batchnorm=ns.freeze_batchnorm,
        scale_batch=ns.scale_batch,
        to_end=ns.to_end,
        batchnorm_chunks=ns.batchnorm_chunks,
        norm_chunks=ns.norm_chunks,
        dropout_chunks=ns.dropout_chunks,
        keep_dropout=ns.keep_dropout,
    )
    return options, rest[0], rest[1:]
