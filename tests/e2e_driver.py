"""Run several training scripts one after another inside this one process.

    python tests/e2e_driver.py OUT_DIR SCRIPT [SCRIPT ...]
    torchrun --standalone --nproc_per_node=2 tests/e2e_driver.py OUT_DIR SCRIPT [SCRIPT ...]

Why: a torchrun launch costs seconds of start-up, so tests/test_examples.py launches this
driver once and it runs every migrated example in the same worker processes (the inserted
`ddp_setup()` returns early once the process group exists). Each script runs as `__main__`
via runpy, in its own working directory OUT_DIR/<example>/<script stem>/, with its stdout
and stderr captured per rank in `rank<R>.stdout` / `rank<R>.stderr` there, and a
`rank<R>.status.json` recording success, run time and `indices`: how many dataset indices
the script's DataLoaders drew on this rank (so a test can tell whether the ranks shared the
data out), and `digest`: the script's module-level `E2E_DIGEST`, if it sets one (a few
numbers summarising its model, so a test can tell whether the ranks stayed in sync).
The driver itself prints only a one-line progress note per script, from rank 0.

A script that raises makes the driver exit 1 at once when the world is larger than one (the
other ranks would wait for it forever; torchrun then stops them); in a world of one the
driver records the failure and goes on with the next script.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import runpy
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from dp2ddp.migrate.atomic import write_atomic

#: logging.FileHandler's constructor before any script ran (ddp_quiet_logging patches it).
_FILE_HANDLER_INIT = logging.FileHandler.__init__


def _reset_logging() -> None:
    """Drop handlers a script installed (basicConfig) so the next script can install its own,
    and undo a migrated script's ddp_quiet_logging() (logging.disable and the FileHandler
    patch, process-wide): each script's rank 1 logs as its own migration makes it (stop 61:
    a script quieting nothing itself passed on the quieting of the one before it)."""
    logging.disable(logging.NOTSET)
    logging.FileHandler.__init__ = _FILE_HANDLER_INIT  # type: ignore[method-assign]
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
        handler.close()


class _IndexCounter:
    """Count the dataset indices DataLoaders draw, by wrapping the loader iterators' private
    `_next_index` (present since torch 1.x); `count` stays None where torch lacks it."""

    def __init__(self) -> None:
        self.count: int | None = None
        #: Indices drawn per dataset size (str keys, for JSON): tells loaders apart.
        self.by_size: dict[str, int] = {}
        self._original: Any = None

    def __enter__(self) -> _IndexCounter:
        try:
            from torch.utils.data.dataloader import _BaseDataLoaderIter
        except ImportError:
            return self
        original = getattr(_BaseDataLoaderIter, "_next_index", None)
        if original is None:
            return self
        self.count, self._original = 0, original
        counter = self

        def _next_index(loader_iter: Any) -> Any:
            index = original(loader_iter)
            drawn = len(index) if isinstance(index, (list, tuple)) else 1
            counter.count = (counter.count or 0) + drawn
            size = str(len(loader_iter._dataset))
            counter.by_size[size] = counter.by_size.get(size, 0) + drawn
            return index

        _BaseDataLoaderIter._next_index = _next_index  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        if self._original is not None:
            from torch.utils.data.dataloader import _BaseDataLoaderIter

            _BaseDataLoaderIter._next_index = self._original  # type: ignore[method-assign]


def _forget_project_modules(folder: Path, before: set[str]) -> None:
    """Unload the modules a multi-module program imported from its own folder, or from a
    folder it put on sys.path (a program fixture's `main/../common`: stop 84), so the next
    script imports its own `models`, `data`, `engine` or `_dp2ddp`, not this one's. Modules
    new since `before` that no installation holds (the standard library, site-packages)
    are the program's."""
    installed = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if not file:
            continue
        where = Path(file).resolve()
        mine = name not in before and not any(where.is_relative_to(p) for p in installed)
        if where.is_relative_to(folder) or mine:
            del sys.modules[name]


def workdir_of(script: Path) -> Path:
    """OUT_DIR's folder of `script`, relative: <example>/<stem>; a program fixture's
    input/ or expected/ scripts also carry the fixture's name (two fixtures' train.py of
    one launch would otherwise share a folder, and one's output hide the other's)."""
    if script.parent.name in ("input", "expected"):
        return Path(f"{script.parent.parent.name}-{script.parent.name}") / script.stem
    return Path(script.parent.name) / script.stem


def _run_one(script: Path, out_dir: Path, rank: int) -> dict[str, object]:
    workdir = out_dir / workdir_of(script)
    workdir.mkdir(parents=True, exist_ok=True)
    old_cwd, old_argv, old_path = os.getcwd(), sys.argv, list(sys.path)
    loaded = set(sys.modules)
    status: dict[str, object] = {"script": str(script), "rank": rank, "ok": False}
    start = time.perf_counter()
    with (
        open(workdir / f"rank{rank}.stdout", "w") as out,
        open(workdir / f"rank{rank}.stderr", "w") as err,
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        _IndexCounter() as indices,
    ):
        try:
            os.chdir(workdir)
            sys.argv = [str(script)]
            sys.path.insert(0, str(script.parent))
            namespace = runpy.run_path(str(script), run_name="__main__")
            status["digest"] = namespace.get("E2E_DIGEST")
            status["ok"] = True
        except SystemExit as exc:  # argparse and explicit exits
            status["ok"] = exc.code in (None, 0)
            if not status["ok"]:
                status["error"] = f"SystemExit({exc.code!r})"
        except BaseException as exc:  # noqa: BLE001 - report everything the script raised
            traceback.print_exc()
            status["error"] = f"{type(exc).__name__}: {exc}"
        finally:
            os.chdir(old_cwd)
            sys.argv, sys.path[:] = old_argv, old_path
            _forget_project_modules(script.parent, loaded)
            _reset_logging()
            out.flush()
            err.flush()
    status["seconds"] = round(time.perf_counter() - start, 3)
    status["indices"] = indices.count
    status["indices_by_size"] = indices.by_size
    # whole or absent: torchrun kills the other rank when one fails, maybe mid-write (stop 74's
    # rehearsal read an empty status file of the rank killed)
    write_atomic(str(workdir / f"rank{rank}.status.json"), json.dumps(status).encode())
    return status


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out_dir = Path(argv[0]).resolve()
    scripts = [Path(s).resolve() for s in argv[1:]]
    rank = int(os.environ.get("RANK", "0"))
    world_size = int(os.environ.get("WORLD_SIZE", "1"))
    failed = 0
    for script in scripts:
        status = _run_one(script, out_dir, rank)
        if rank == 0:
            verdict = "ok" if status["ok"] else f"FAILED ({status.get('error')})"
            print(
                f"[e2e] {script.parent.name}/{script.name}: {verdict} in {status['seconds']}s",
                flush=True,
            )
        if not status["ok"]:
            failed += 1
            if world_size > 1:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(1)  # peers may be blocked in a collective: do not run atexit hooks
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
