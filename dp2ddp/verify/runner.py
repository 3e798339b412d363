"""Entry point inside the user's processes: `python -m dp2ddp.verify.runner OPTS -- SCRIPT ...`.

Runs the script as `__main__` (as `python SCRIPT` would, so `if __name__ == "__main__"` and
pickling of its classes work) after installing the instrumentation; the script's files are
not touched. Its stdout/stderr go to files in the output directory. The process ends
 * at the K-th step (the recorder saves and exits 0; with --to-end it saves and goes on),
 * when the script ends on its own (saved as `finished`),
 * when the script raises (saved as `error` with a traceback excerpt of the script's frames).
"""

from __future__ import annotations

import builtins
import faulthandler
import json
import os
import signal
import sys
import threading
import time
import traceback
import types
from pathlib import Path

from dp2ddp.verify import protocol

_EXCERPT_LINES = 25


def _redirect_output(outdir: Path) -> None:
    for stream, name in ((sys.stdout, protocol.STDOUT), (sys.stderr, protocol.STDERR)):
        stream.flush()
        fd = os.open(outdir / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, stream.fileno())
        os.close(fd)


def _install_stack_dump(outdir: Path) -> None:
    """On STACK_SIGNAL, write every thread's Python stack to STACK (the harness asks before
    it ends a run that timed out). faulthandler dumps from its C signal handler, so it answers
    also while the script is blocked inside a collective. pid.json says the handler is there."""
    signum = getattr(signal, protocol.STACK_SIGNAL_NAME, None)
    if signum is None or not hasattr(faulthandler, "register"):  # Windows: no such signal
        return
    dump = open(outdir / protocol.STACK, "w")  # noqa: SIM115  (open for the process's life)
    faulthandler.register(signum, dump, all_threads=True)
    ident = {"pid": os.getpid(), "main_thread": threading.main_thread().ident}
    tmp = outdir / (protocol.PID + ".tmp")
    tmp.write_text(json.dumps(ident))
    os.replace(tmp, outdir / protocol.PID)


def _script_traceback(exc: BaseException, script: str) -> str:
    """The traceback from the script's first frame on (none of the runner's frames)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != script:
        tb = tb.tb_next
    lines = traceback.format_exception(type(exc), exc, tb or exc.__traceback__)
    text = "".join(lines).rstrip().splitlines()
    if len(text) > _EXCERPT_LINES:
        text = ["  ...", *text[-_EXCERPT_LINES:]]
    return "\n".join(text)


def _execute(script: str, args: list[str], file_attr: str) -> None:
    code = compile(Path(script).read_bytes(), script, "exec")
    main = types.ModuleType("__main__")
    main.__file__ = file_attr
    main.__dict__["__builtins__"] = builtins
    sys.modules["__main__"] = main
    sys.argv = [file_attr, *args]
    sys.path[0] = os.path.dirname(os.path.abspath(file_attr))
    exec(code, main.__dict__)


def main(argv: list[str] | None = None) -> None:
    options, script, script_args = protocol.parse_runner_argv(
        sys.argv[1:] if argv is None else argv
    )
    rank = int(os.environ.get("RANK", "0"))
    world = int(os.environ.get("WORLD_SIZE", "1"))
    outdir = Path(options.out) / protocol.rank_dir_name(rank)
    outdir.mkdir(parents=True, exist_ok=True)
    _redirect_output(outdir)
    _install_stack_dump(outdir)

    # Imported after the redirect: torch's import-time warnings belong to the run's logs.
    from dp2ddp.verify import alignment, fingerprint, probes, replicas
    from dp2ddp.verify.reach import LineReach
    from dp2ddp.verify.recorder import HarnessFailure, Recorder

    recorder = Recorder(options, rank, world, outdir)
    if options.dropout_chunks > 1:  # the original: a dim=1 wrap it may not build (probes)
        from dp2ddp.verify.scan import wrap_dims

        recorder.written_dims = wrap_dims(Path(script).read_text("utf-8-sig", "replace"))
    alignment.deterministic_kernels()
    alignment.install(recorder, options.seed, options.scale_batch)
    probes.install(
        recorder,
        options.no_dropout,
        options.freeze_batchnorm,
        options.batchnorm_chunks,
        options.dropout_chunks,
        options.keep_dropout,
        options.norm_chunks,
    )
    fingerprint.install(recorder)
    replicas.install(recorder)
    recorder.install()
    if options.to_end:
        from dp2ddp.verify.writes import WriteLog

        recorder.writes = WriteLog((options.out,))
        recorder.writes.install()
    alignment.seed_everything(alignment.process_seed(options.seed, rank))
    if world == 1:  # the original: the causes verify names from code are its lines
        recorder.reach = LineReach(outdir)
        recorder.reach.install()

    script_path = os.path.abspath(script)
    try:
        _execute(script_path, script_args, os.path.abspath(options.file_attr))
    except HarnessFailure as exc:
        recorder.finish(protocol.HARNESS_ERROR, _error(exc, script_path))
        sys.exit(3)
    except SystemExit as exc:
        if exc.code not in (None, 0):
            recorder.finish(
                protocol.ERROR,
                {"time": repr(time.time()), "type": "SystemExit",
                 "message": f"exited with status {exc.code}",
                 "excerpt": _script_traceback(exc, script_path)},
            )  # fmt: skip
            raise
    except BaseException as exc:  # the script's failure: record it, exit non-zero
        recorder.finish(protocol.ERROR, _error(exc, script_path))
        sys.stderr.write(_script_traceback(exc, script_path) + "\n")
        sys.exit(1)
    recorder.finish(protocol.FINISHED)


def _error(exc: BaseException, script: str) -> dict[str, str]:
    return {
        "time": repr(time.time()),  # the rank that failed first is the cause, not the others
        "type": type(exc).__name__,
        "message": str(exc).strip().splitlines()[0] if str(exc).strip() else "",
        "excerpt": _script_traceback(exc, script),
    }


if __name__ == "__main__":
    main()
