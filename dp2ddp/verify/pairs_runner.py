"""`python -m dp2ddp.verify.pairs_runner PLAN`: several pairs' runs in one process (verify_pairs).

PLAN is a JSON file: `{"base": {...}, "pairs": [{"argv": [...], "env": {...}, ...}]}`, `base`
the environment this process was started with, each pair's `argv` the arguments of `python -m
dp2ddp.verify.runner`, `env`, `cwd` and `timeout` its run's. This process imports what the
runner imports (torch, the instrumentation) once, then forks a child per pair, one after the
other: the child takes the pair's environment (with what the launcher added: RANK, WORLD_SIZE,
...), working folder and PYTHONPATH folders on sys.path, and runs `runner.main`, which
installs the instrumentation and runs the script. Each pair so starts from the state a fresh
runner process has when its script starts; the imports are paid once, not once per pair.

Under torchrun the ranks' children of one pair meet in a rendezvous store of their own,
hosted as torchrun's agent hosts one (TORCHELASTIC_USE_AGENT_STORE: the process group and the
migration's ddp_rank0_value read it) by a process rank 0 forks for the pair, its port passed
in the pair's output folder (PORT_FILE): the launcher's store would hold the previous pair's
keys. It ends once every rank's child of the pair has ended. Each child's exit status and
time go to the pair's output folder (EXIT_FILE); a child past its pair's timeout is ended
(SIGKILL) and the pair recorded as timed out. A failed pair ends a launch of more than one
rank at once: its peers may be waiting in a collective, as torchrun stops a failed launch.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from dp2ddp.verify import protocol

EXIT_FILE = "pair-exit-rank{rank}.json"
PORT_FILE = "pair-port"
_PORT_WAIT = 300.0
_POLL = 0.05


def _folders(search_path: str | None, cwd: str) -> list[str]:
    """PYTHONPATH's folders as Python puts them on sys.path at start-up (absolute)."""
    entries = (search_path or "").split(os.pathsep)
    return [os.path.abspath(os.path.join(cwd, entry)) for entry in entries if entry]


def _enter(pair: dict[str, Any], base: dict[str, str], start_cwd: str, port: int | None) -> None:
    """In the child: the pair's environment, working folder and search path."""
    launched = {k: v for k, v in os.environ.items() if base.get(k) != v}
    env = {**pair["env"], **launched}
    if port is not None:  # the pair's own store, as torchrun's agent's for a launch
        env["MASTER_PORT"] = str(port)
    os.environ.clear()
    os.environ.update(env)
    os.chdir(pair["cwd"])
    old = _folders(base.get("PYTHONPATH"), start_cwd)
    new = _folders(pair["env"].get("PYTHONPATH"), pair["cwd"])
    if old != new:
        for folder in old:
            if folder in sys.path[1:]:
                sys.path.remove(folder)
        sys.path[1:1] = [folder for folder in dict.fromkeys(new) if folder not in sys.path]


def _serve_store(out: Path) -> int:
    """Rank 0: a forked process hosting the pair's rendezvous store (torchrun's agent hosts
    one for a launch); its port goes to PORT_FILE. Forked, so that this process starts no
    thread before it forks the pair's child. Returns its pid."""
    out.mkdir(parents=True, exist_ok=True)
    pid = os.fork()
    if pid:
        return pid
    try:
        import torch.distributed as dist

        store = dist.TCPStore(  # type: ignore[attr-defined]  # public, not re-exported in stubs
            os.environ.get("MASTER_ADDR", "localhost"), 0, None, True, wait_for_workers=False
        )
        tmp = out / (PORT_FILE + ".tmp")
        tmp.write_text(str(store.port))
        os.replace(tmp, out / PORT_FILE)
        while True:  # until rank 0 ends it, once every rank's child of the pair has ended
            time.sleep(3600)
    finally:
        os._exit(1)


def _wait_for(path: Path, what: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        if time.monotonic() > deadline:
            raise SystemExit(f"dp2ddp.verify.pairs_runner: no {what} after {seconds:g} s")
        time.sleep(_POLL)


def _end(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


def _run_pair(pair: dict[str, Any], base: dict[str, str], start_cwd: str, rank: int) -> int:
    """Fork a child for the pair, wait for it; its exit status (negative: its signal)."""
    options, _, _ = protocol.parse_runner_argv(pair["argv"])
    out = Path(options.out)
    world = int(os.environ.get("WORLD_SIZE", "1"))
    port, store = None, None
    if world > 1:
        store = _serve_store(out) if rank == 0 else None
        _wait_for(out / PORT_FILE, "port of rank 0's store", _PORT_WAIT)
        port = int((out / PORT_FILE).read_text())
    sys.stdout.flush()
    sys.stderr.flush()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: run the pair, then end as a runner process ends
        code: int | str | None = 0
        try:
            _enter(pair, base, start_cwd, port)
            from dp2ddp.verify import runner

            runner.main(pair["argv"])
        except SystemExit as exc:
            code = exc.code
        sys.exit(code)
    timed_out = False
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() - start > float(pair["timeout"]):  # its own timeout, as verify's
            os.kill(pid, signal.SIGKILL)  # its descendants: the launch's process tree ends them
            _, status = os.waitpid(pid, 0)
            timed_out = True
            break
        time.sleep(_POLL)
    code = os.waitstatus_to_exitcode(status)
    out.mkdir(parents=True, exist_ok=True)
    record = {"code": code, "seconds": round(time.monotonic() - start, 3), "timed_out": timed_out}
    (out / EXIT_FILE.format(rank=rank)).write_text(json.dumps(record))
    if store is not None:  # the other ranks' children may still read the store
        try:
            if code == 0:
                for other in range(1, world):
                    _wait_for(out / EXIT_FILE.format(rank=other), "end", float(pair["timeout"]))
        finally:
            _end(store)
    return code


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    plan = json.loads(Path(args[0]).read_text())
    start_cwd = os.getcwd()
    rank = int(os.environ.get("RANK", "0"))
    world = int(os.environ.get("WORLD_SIZE", "1"))
    # What a runner imports before its script starts, paid here once for every pair.
    import torch  # noqa: F401

    from dp2ddp.verify import alignment, fingerprint, probes, recorder, replicas  # noqa: F401

    failed = 0
    for pair in plan["pairs"]:
        code = _run_pair(pair, plan["base"], start_cwd, rank)
        if code != 0:
            failed += 1
            if world > 1:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(1)  # the peers may wait in a collective: end the launch
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main()
