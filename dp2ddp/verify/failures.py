"""Runs that crashed, hung or ended without a step: what failed in each, and the likely
cause of a hang (read from every rank's stack). Split from session.py, which judges the
runs and hands their results here."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import TYPE_CHECKING

from dp2ddp.verify import hang, launch, protocol, toend
from dp2ddp.verify.config import VerifyConfig, torch_seed
from dp2ddp.verify.forward_state import state_crash_cause
from dp2ddp.verify.ratio_cause import warned
from dp2ddp.verify.records import RankRecord
from dp2ddp.verify.report import FAILED, NOT_COMPARABLE, Cause, Failure

if TYPE_CHECKING:
    from dp2ddp.verify.session import Scripts


def exit_aborts(result: launch.RunResult, records: list[RankRecord]) -> list[int] | None:
    """Ranks of a run whose only fault is torch's known abort at exit (see `toend`)."""
    distributed = result.name == launch.MIGRATED
    return toend.known_exit_aborts(
        result.returncode,
        [r.status == protocol.FINISHED for r in records],
        [r.stderr for r in records],
        toend.torchrun_exit_codes(result.log_tail) if distributed else {},
        distributed,
    )


_EXIT_STATUS = re.compile(r"exited with status (-?\d+)")


def exit_status(record: RankRecord) -> int | None:
    """The status a script chose to exit with (`sys.exit(3)`, `exit(3)`: an int, not 0),
    as the runner recorded it; None for anything else (an exception, `sys.exit("msg")`)."""
    error = record.error or {}
    if record.status != protocol.ERROR or error.get("type") != "SystemExit":
        return None
    found = _EXIT_STATUS.fullmatch(error.get("message", ""))
    return int(found.group(1)) if found else None


def deliberate_exits(records: list[RankRecord]) -> int | None:
    """The exit status a run's script chose, when that is all that went wrong: at least one
    process exited so (a restart protocol: LMescheder/GAN_stability's `exit(3)` after
    `restart_every`), the others too or stopped by torchrun before they saved (status None);
    None otherwise."""
    codes = {exit_status(r) for r in records if r.status is not None}
    if len(codes) != 1 or None in codes:
        return None
    return codes.pop()


def deliberate_exit(original: RankRecord, ranks: list[RankRecord]) -> int | None:
    """The status both runs chose to exit with: the original's and the migrated ranks'
    deliberate exits agree (V1: such a run is compared to its end, not called a crash)."""
    code = deliberate_exits([original])
    return code if code is not None and deliberate_exits(ranks) == code else None


def excerpt(text: str, scripts: Scripts, lines: int = 25) -> str:
    text = scripts.as_users(text.replace(str(scripts.migrated.resolve()), scripts.migrated_label))
    kept = text.rstrip().splitlines()[-lines:]
    return "\n".join(kept)


_FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+)')
#: Frames of Python, its packages and verify's harness: not the script's own line.
_LIBRARY = ("site-packages", "dist-packages", "/lib/python", "<frozen", "dp2ddp/verify/")


def _script_line(text: str) -> str:
    """`path:line: code` of the innermost traceback frame in the script's own files."""
    lines = text.splitlines()
    found = ""
    for i, line in enumerate(lines):
        frame = _FRAME.match(line.lstrip("| "))
        if frame and frame[1].endswith(".py") and not any(p in frame[1] for p in _LIBRARY):
            code = lines[i + 1].lstrip("| ").strip() if i + 1 < len(lines) else ""
            code = "" if _FRAME.match(code) else code
            found = f"{frame[1]}:{frame[2]}" + (f": {code}" if code else "")
    return found


def seeded_crash_note(seed: int, message: str, text: str) -> str:
    """What verify did to the original before it crashed, said with its error line: verify
    seeds every RNG, so a crash may be the seeding's, not the program's; never left as a
    bare "the original crashed" (saoyan/generativeskinlesion@d0df9c0, V10)."""
    where = _script_line(text)
    return (
        f"the original failed under verify's seeding ({message}"
        + (f", at {where}" if where else "")
        + f"): verify ran it with random.seed({seed}), numpy.random.seed({seed}), "
        f"torch.manual_seed({torch_seed(seed)}) (so torch.initial_seed() is that 64-bit "
        "value, as in a plain run), its DataLoaders' order and each sample's draws seeded "
        "alike in both runs. Run the original alone (python ORIGINAL ARGS): if it fails "
        "there too the program is at fault; if not, the seeding is (try another --seed) "
        "and verify could not compare the runs"
    )


_MISSING_PATH = re.compile(r"^(?:FileNotFoundError|OSError): \[Errno 2\] [^:]*: '([^']+)'")


def plain_crash_note(
    message: str, text: str, run: str, folder: Path, script: Path | None = None
) -> str | None:
    """The cause of a crash that verify's seeding cannot have made, said as such; None for
    any other. Both were blamed on the seeding (stop 55 r1-B: a program ending with
    EOFError at `input()`; stop 56: a relative config path missing where verify was started
    from). `run`: "the original" or "the migrated run"; `folder`: where it ran, as the
    user knows it; `script`: its entry, to say where a missing relative path does lie."""
    where = _script_line(text)
    at = f" at {where}" if where else ""
    if message.startswith("EOFError") and ("input(" in text or "EOF when reading" in message):
        return (
            f"{run} reads standard input{at}; verify gives it none (its stdin is empty, as "
            "under a launcher without a terminal), so the read ended the program: not "
            "verify's seeding. Give the answer through the program's arguments or settings, "
            "or remove what it asks about (a run folder left by an earlier run) and verify again"
        )
    unpickled = _unpickled(message, text, run, at)
    if unpickled:
        return unpickled
    if _IN_BATCHNORM_EMULATION.search(text):
        return (
            f"{run} failed inside verify's per-chunk BatchNorm{at} ({message}): verify "
            "normalises each training batch in chunks, as DataParallel's replicas do, and this "
            "BatchNorm call could not run so; not verify's seeding and not the program. Verify "
            "again with --freeze-batchnorm (running statistics in both runs)"
        )
    missing = _MISSING_PATH.match(message)
    if missing and not Path(missing.group(1)).is_absolute():
        path = missing.group(1)
        there = ""
        if script is not None and (script.parent / path).exists() and script.parent != folder:
            there = f"; {path} lies in {script.parent}: start verify from there"
        return (
            f"{run} did not find {path}{at}, a path relative to the folder it runs in: verify "
            f"ran it in {folder} (the folder verify was started from, as `python` would run "
            f"it), not verify's seeding{there}"
        )
    return None


#: torch.load of a file that is no whole checkpoint: a truncated zip (torch.save's format)
#: or pickle, an empty file, or a file of another kind (weights_only's reader: an operand it
#: does not know).
_NOT_A_CHECKPOINT = re.compile(
    r"^(?:UnpicklingError: .*(?:invalid load key|pickle data was truncated|Unsupported "
    r"operand)|RuntimeError: PytorchStreamReader failed|EOFError\b)",
    re.DOTALL,
)
#: A frame of verify's BatchNorm emulation (probes._batch_norm_probe) in a traceback.
_IN_BATCHNORM_EMULATION = re.compile(r'verify/probes\.py", line \d+, in batch_norm')


def _unpickled(message: str, text: str, run: str, at: str) -> str | None:
    """torch.load failing in a run, said as what failed (both were "failed under verify's
    seeding": WiseDoge/CoupletAI@fc052f8's pickled datasets under torch >= 2.6, stop 57)."""
    if "serialization.py" not in text and not message.startswith("UnpicklingError"):
        return None
    if _NOT_A_CHECKPOINT.match(message) or (
        message.startswith("UnpicklingError")
        and _NOT_A_CHECKPOINT.match(f"UnpicklingError: {text}")
    ):  # the message as recorded may stop before weights_only's reason
        first = message.splitlines()[0][:100]
        return (
            f"{run} read a file that is no whole checkpoint with torch.load{at} ({first}): a "
            "file another process was still writing (a rank reading what rank 0 saves with no "
            "barrier between, or two runs sharing one folder), an empty file, or one "
            "torch.save did not write; not verify's seeding. Check the file that line reads, "
            "and where another process writes it"
        )
    if message.startswith("UnpicklingError: Weights only load failed"):
        return (
            f"{run} could not load a pickled object with torch.load{at}: torch >= 2.6 loads "
            "with weights_only=True by default and refuses a pickled class (a dataset, a whole "
            "model, an optimizer); not verify's seeding. For a file you trust pass "
            "weights_only=False to that torch.load (or set TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1 "
            "for the check) and verify again"
        )
    return None


#: What DDP's reducer says when a parameter got no gradient in the step before.
_UNFINISHED_REDUCTION = "Expected to have finished reduction in the prior iteration"
_UNUSED_INDICES = re.compile(
    r"Parameter indices which did not receive grad for rank (\d+): ([\d ]+)"
)
_STATIC_GRAPH = "static_graph set to True"
_UNUSED_NAMES = re.compile(r"Parameters which did not receive grad for rank (\d+): ([^\n]+)")


def unused_parameters_cause(text: str, warnings: tuple[str, ...] = ()) -> Cause | None:
    """The cause named when DDP failed because some parameters got no gradient (a model
    whose forward() skips a layer on some paths: DataParallel does not mind, DDP does).
    Under static_graph=True (what dp2ddp passes with DP096) the same error means a step
    used the parameters otherwise than the first: "pass find_unused_parameters=True" was
    false there (a WGAN-GP critic's penalty backpropagated on its own, DP023: stop 54 v3-C's
    GenerativeSkinLesion shape), and the migration's DP096/DP023 lines are the cause."""
    if _UNFINISHED_REDUCTION not in text:
        return None
    named = _UNUSED_NAMES.search(text) or _UNUSED_INDICES.search(text)
    which = ""
    if named:
        kind = "parameters" if named.re is _UNUSED_NAMES else "parameter indices"
        which = f"; rank {named.group(1)}: {kind} {named.group(2).strip()[:200]}"
    if _STATIC_GRAPH in text:
        places = [f"{code} at {p}" for code in ("DP096", "DP023") for p in warned(warnings, code)]
        return Cause(
            "static_graph_changed",
            "a step used the model's parameters otherwise than the first, under static_graph=True",
            f'DDP\'s reducer: "{_UNFINISHED_REDUCTION}" ... "not compatible with static_graph '
            f'set to True"{which}'
            + (f"; dp2ddp migrate warned {'; '.join(places[:4])}" if places else ""),
            "static_graph=True (dp2ddp passes it with DP096 for a model called several times "
            "before one backward) needs every step to use the parameters as the first did. "
            "Find the step that differs: a gradient penalty backpropagated on its own (DP023: "
            "add it to the loss of the same backward), a head used only at some steps; do "
            "what DP096 and DP023 at their lines say, then verify again.",
        )
    return Cause(
        "unused_parameters",
        "some parameters got no gradient in a step (DDP without find_unused_parameters)",
        "DDP's reducer waited for a gradient that never came: \""
        + _UNFINISHED_REDUCTION
        + '"'
        + which,
        "The model's forward() does not use every parameter in every step (a layer used "
        "only on some branch, after an early return, or never). DataParallel does not mind; "
        "DDP does: pass find_unused_parameters=True to the DistributedDataParallel wrap (dp2ddp "
        "does, with DP041, where it sees such a forward), or delete the unused layer. "
        "TORCH_DISTRIBUTED_DEBUG=DETAIL names the parameters.",
    )


class RunFailures:
    """Runs that crashed, hung or ended without a step, with the likely cause of a hang."""

    def __init__(
        self,
        config: VerifyConfig,
        scripts: Scripts,
        workdir: Path,
        alive: dict[str, dict[int, bool]],
    ) -> None:
        self.config = config
        self.scripts = scripts
        self.workdir = workdir
        self.alive = alive
        self.causes: list[Cause] = []
        self.notes: list[str] = []

    def collect(
        self,
        results: dict[str, launch.RunResult],
        original: RankRecord,
        ranks: list[RankRecord],
    ) -> list[Failure]:
        failures: list[Failure] = []
        chosen = deliberate_exit(original, ranks)
        if chosen is not None:
            exited = ", ".join(str(r.rank) for r in ranks if exit_status(r) == chosen)
            self.notes.append(
                f"the original exited with status {chosen} (its own sys.exit, no traceback), "
                f"and so did the migrated run (rank {exited}): a deliberate exit, the same in "
                "both, compared as the end of the runs"
            )
        for name, records in ((launch.ORIGINAL, [original]), (launch.MIGRATED, ranks)):
            result = results.get(name)
            if result is None or result.cancelled:
                continue
            failure = self._run_failure(result, records, name == launch.MIGRATED, chosen)
            if failure is not None:
                failures.append(failure)
        if not failures and any(r.cancelled for r in results.values()):
            failures.append(Failure("migrated", None, "cancelled", "a run was cancelled"))
        return failures

    def verdict(self) -> str:
        """RUN FAILED; not comparable where a crash was state a replica kept on `self`
        (forward_state.py), which is no failure of the program nor of the migration."""
        stated = any(c.key == "not_comparable" for c in self.causes)
        return NOT_COMPARABLE if stated else FAILED

    def _display(self, path: str) -> str:
        return self.scripts.display(path)

    def _run_failure(
        self,
        result: launch.RunResult,
        records: list[RankRecord],
        distributed: bool,
        chosen: int | None = None,
    ) -> Failure | None:
        """`chosen`: the exit status both runs chose (deliberate_exit): no failure."""
        run = result.name
        scripts, config = self.scripts, self.config
        rank_of = (lambda r: r.rank) if distributed else (lambda r: None)  # noqa: E731
        failed = [
            r
            for r in records
            if r.status in (protocol.ERROR, protocol.HARNESS_ERROR)
            and (chosen is None or exit_status(r) != chosen)
        ]
        if failed:
            # The first to fail is the cause; the others typically lost their peer in a collective.
            record = min(failed, key=lambda r: float((r.error or {}).get("time", "inf")))
            error = record.error or {}
            reason = "crashed" if record.status == protocol.ERROR else "harness error"
            message = f"{error.get('type', 'error')}: {error.get('message', '')}".rstrip(": ")
            if distributed and hang.peer_lost(message):
                self._peer_lost(record, records)
            text = excerpt(error.get("excerpt") or record.stderr, scripts)
            plain = (
                plain_crash_note(
                    message,
                    text,
                    "the migrated run" if distributed else "the original",
                    (config.cwd or Path.cwd()).resolve(),
                    Path(scripts.as_users(str(scripts.migrated.resolve())))
                    if distributed
                    else scripts.original.resolve(),
                )
                if record.status == protocol.ERROR
                else None
            )
            if plain is not None:
                self.notes.append(plain)
            if distributed:
                cause = unused_parameters_cause(
                    f"{message}\n{error.get('excerpt') or ''}", scripts.warnings
                )
                if cause is not None:
                    self.causes.append(cause)
            elif record.status == protocol.ERROR and exit_status(record) is None and not plain:
                held = record.data.get("forward_state") or {}
                if held:  # not the seeding: state sized by a replica's rows (forward_state.py)
                    self.causes.append(
                        state_crash_cause(held, scripts.warnings, message, _script_line(text))
                    )
                else:
                    self.notes.append(seeded_crash_note(config.seed, message, text))
            return Failure(
                run, rank_of(record), reason, message,
                excerpt(error.get("excerpt") or record.stderr, scripts),
            )  # fmt: skip
        if result.complete:
            return None
        if result.timed_out:
            return self._timed_out(result, records, distributed)
        if result.returncode != 0:
            if chosen is not None:
                return None  # the script's own exit status, the same in both runs (noted)
            if config.to_end and exit_aborts(result, records):
                return None  # torch's known abort at exit, after every script ended (noted)
            silent = [r for r in records if r.status is None]
            rank = silent[0].rank if silent and distributed else None
            record = silent[0] if silent else records[0]
            text = record.stderr.strip() or result.log_tail
            if not silent and config.to_end:
                codes = toend.torchrun_exit_codes(result.log_tail) if distributed else {}
                which = ", ".join(f"rank {r} with status {c}" for r, c in sorted(codes.items()))
                return Failure(
                    run, None, "exited non-zero",
                    f"every script ended, then the process exited "
                    f"{which or f'with status {result.returncode}'}",
                    excerpt(result.log_tail, scripts),
                )  # fmt: skip
            return Failure(
                run, rank, "crashed",
                f"exited with status {result.returncode}"
                + (f" (rank {rank} saved no result)" if rank is not None else ""),
                excerpt(text, scripts),
            )  # fmt: skip
        if not records[0].events:
            return Failure(
                run, None, "no optimizer step",
                "the script ended without calling optimizer.step(): nothing to compare",
                excerpt(records[0].stdout, scripts, 8),
            )  # fmt: skip
        unfinished = [
            r
            for r in records
            if config.to_end
            and r.status != protocol.FINISHED
            and r.status != protocol.STOPPED
            and (chosen is None or exit_status(r) != chosen)
        ]
        if unfinished:
            return Failure(
                run, rank_of(unfinished[0]), "crashed",
                "the process exited 0 without ending its script (os._exit?)",
                excerpt(unfinished[0].stderr, scripts, 8),
            )  # fmt: skip
        return None

    def _timed_out(
        self, result: launch.RunResult, records: list[RankRecord], distributed: bool
    ) -> Failure:
        config = self.config
        progress = ", ".join(
            f"rank {r.rank} at step {r.steps}" if distributed else f"{r.steps} steps done"
            for r in records
        )
        states = hang.read_states(
            self.workdir / result.name,
            len(records),
            self.alive.get(result.name, {}),
            self._display,
            distributed,
        )
        self.causes.append(hang.hang_cause(states, distributed))
        lines = []
        for state in states:
            lines.append(state.describe())
            lines += [f"    {frame}" for frame in state.frames[-6:]]
        what = "did not end" if config.to_end else "no result"
        if (
            self.scripts.copy is not None
            and not self.scripts.run_folder
            and result.name == launch.MIGRATED
        ):
            lines.append("(lines of the migrated code: `dp2ddp migrate --diff ENTRY` shows it)")
        return Failure(
            result.name, None, "timed out",
            f"{what} after {config.timeout:g} s ({progress}); its stacks were read, then all its "
            "processes were ended",
            "\n".join(lines),
        )  # fmt: skip

    def _peer_lost(self, record: RankRecord, records: list[RankRecord]) -> None:
        """A rank crashed in a collective because a peer had left it: name where it waited."""
        exited = [
            r
            for r in records
            if r.status in (protocol.FINISHED, protocol.STOPPED, protocol.COMPARED)
            or r.status is None
        ]
        if not exited:
            return
        frames = hang.parse_traceback((record.error or {}).get("excerpt", ""))
        state = hang.process_state(record.rank, frames, hang.library_roots(), self._display, True)
        states = [
            state if r.rank == record.rank else hang.ProcessState(r.rank, hang.EXITED)
            for r in records
            if r.rank == record.rank or r in exited
        ]
        cause = hang.hang_cause(states, True)
        self.causes.append(
            dataclasses.replace(
                cause,
                detail=cause.detail
                + f" (rank {record.rank} then failed: its peer left the collective)",
            )
        )
