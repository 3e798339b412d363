"""The pure parts of verify beyond the first K steps, without launching anything: stack-dump
and traceback parsing, naming a hang's cause, the output-once and write-once checks, torch's
known abort at exit, global step counting and parameter keys, non-finite runs, and the
project copy of `dp2ddp verify ENTRY.py`."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from array import array
from pathlib import Path
from typing import Any

import pytest
import torch

from dp2ddp.verify import launch, protocol, toend
from dp2ddp.verify.arrays import Vector
from dp2ddp.verify.causes import nonfinite_cause
from dp2ddp.verify.compare import NonFinite, nonfinite
from dp2ddp.verify.hang import (
    EXITED,
    WAITS,
    Frame,
    ProcessState,
    hang_cause,
    parse_stack_dump,
    parse_traceback,
    peer_lost,
    process_state,
    source_code,
)
from dp2ddp.verify.project import ProjectError, copy_project, project_root
from dp2ddp.verify.recorder import Recorder
from dp2ddp.verify.records import RankRecord
from dp2ddp.verify.toend import (
    KNOWN_EXIT_ABORT,
    check_output,
    final_distance,
    known_exit_aborts,
    mask_numbers,
    own_directories,
    shared_writes,
    stdin_readers,
    to_end_causes,
    torchrun_console_shows_known_abort,
    torchrun_exit_codes,
)
from dp2ddp.verify.writes import WriteLog, _CountedStdin, ignored_write

LIB = "/venv/lib/python3.11/site-packages"
ROOTS = (LIB, "/usr/lib/python3.11")


# -- stacks ----------------------------------------------------------------------------------
DUMP = f"""Thread 0x00007f0000000002 (most recent call first):
  File "/usr/lib/python3.11/threading.py", line 327 in wait
  File "{LIB}/torch/utils/data/_utils/pin_memory.py", line 50 in _pin_memory_loop

Current thread 0x00007f46bfe3ab80 (most recent call first):
  File "{LIB}/torch/distributed/distributed_c10d.py", line 5356 in barrier
  File "{LIB}/torch/distributed/c10d_logger.py", line 83 in wrapper
  File "/proj/train.py", line 60 in main
  File "/proj/train.py", line 70 in <module>
  File "{LIB}/dp2ddp/verify/runner.py", line 70 in _execute
"""


def test_the_main_threads_stack_is_read_from_a_faulthandler_dump() -> None:
    frames = parse_stack_dump(DUMP, 0x7F46BFE3AB80)
    assert frames[0] == Frame(f"{LIB}/torch/distributed/distributed_c10d.py", 5356, "barrier")
    assert frames[2] == Frame("/proj/train.py", 60, "main")
    assert len(frames) == 5
    # unknown main thread: the first thread's block; nothing parsable: no frames
    assert parse_stack_dump(DUMP, None)[0].function == "wait"
    assert parse_stack_dump("garbage\n", 1) == []


def test_a_wait_is_named_by_the_users_innermost_line(tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text("\n" * 59 + "    dist.barrier()  # wait for the checkpoint\n")
    frames = [
        Frame(f"{LIB}/torch/distributed/distributed_c10d.py", 5356, "barrier"),
        Frame(f"{LIB}/torch/distributed/c10d_logger.py", 83, "wrapper"),
        Frame(str(script), 60, "main"),
        Frame(str(script), 70, "<module>"),
    ]
    state = process_state(0, frames, ROOTS, lambda p: Path(p).name, distributed=True)
    assert (state.state, state.where, state.code, state.call) == (
        WAITS,
        "train.py:60",
        "dist.barrier()",
        "barrier",
    )
    assert state.collective
    assert state.frames == ("train.py:70 in <module>", "train.py:60 in main")
    assert state.describe() == "rank 0 waits in dist.barrier() at train.py:60"


def test_backward_under_ddp_is_a_collective_and_sleep_is_not(tmp_path: Path) -> None:
    script = tmp_path / "t.py"
    script.write_text("loss.backward()\ntime.sleep(3600)\n")
    backward = [
        Frame(f"{LIB}/torch/autograd/graph.py", 829, "_engine_run_backward"),
        Frame(f"{LIB}/torch/_tensor.py", 625, "backward"),
        Frame(str(script), 1, "main"),
    ]
    state = process_state(0, backward, ROOTS, lambda p: "t.py", distributed=True)
    assert (
        state.describe() == "rank 0 waits in loss.backward() at t.py:1 (DDP's gradient all-reduce)"
    )
    sleeping = process_state(1, [Frame(str(script), 2, "main")], ROOTS, lambda p: "t.py", True)
    assert not sleeping.collective
    assert sleeping.describe() == "rank 1 is busy in time.sleep(3600) at t.py:2 (not a collective)"
    only_library = process_state(None, backward[:2], ROOTS, str, distributed=False)
    assert only_library.describe() == "the original is alive but gave no Python stack"


def test_hang_causes() -> None:
    barrier = ProcessState(0, WAITS, "train.py:60", "dist.barrier()", "barrier", True)
    reduce = ProcessState(1, WAITS, "train.py:63", "dist.all_reduce(m)", "all_reduce", True)
    exited = ProcessState(1, EXITED)
    mismatch = hang_cause([barrier, reduce], distributed=True)
    assert mismatch.key == "collective_not_reached"
    assert mismatch.title == "a collective that only some ranks reach"
    assert mismatch.detail == (
        "rank 0 waits in dist.barrier() at train.py:60; "
        "rank 1 waits in dist.all_reduce(m) at train.py:63"
    )
    alone = hang_cause([barrier, exited], distributed=True)
    assert alone.detail.endswith("rank 1 has exited")
    assert alone.key == "collective_not_reached"
    twin = ProcessState(1, WAITS, "train.py:60", "dist.barrier()", "barrier", True)
    assert hang_cause([barrier, twin], distributed=True).key == "collective_stuck"
    busy = ProcessState(None, WAITS, "t.py:9", "time.sleep(1)", "", False)
    assert hang_cause([busy], distributed=False).key == "slow_or_stuck"


def test_a_traceback_reads_like_a_stack_and_gloo_peer_loss_is_recognised() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/proj/train.py", line 70, in <module>\n    main()\n'
        '  File "/proj/train.py", line 60, in main\n    dist.barrier()\n'
        f'  File "{LIB}/torch/distributed/distributed_c10d.py", line 5356, in barrier\n'
        "    work.wait()\nRuntimeError: [pair.cc:553] Connection closed by peer [127.0.0.1]:7094\n"
    )
    frames = parse_traceback(text)
    assert [f.line for f in frames] == [5356, 60, 70]
    assert peer_lost("RuntimeError: [pair.cc:537] Read error: Connection reset by peer")
    assert not peer_lost("RuntimeError: boom on rank 1")


def test_source_code_drops_the_comment_only() -> None:
    assert source_code("dist.barrier()  # wait") == "dist.barrier()"
    assert source_code("print('a # b')  # c") == "print('a # b')"
    assert source_code("x = (1,") == "x = (1,"


# -- output printed once -------------------------------------------------------------------
def test_numbers_are_masked() -> None:
    assert mask_numbers("epoch 3: loss 0.1234 (1.5e-03) at 0x7f1a, nan") == (
        "epoch #: loss # (#) at #, #"
    )
    assert mask_numbers("information") == "information"


def test_a_figure_padded_to_its_width_is_the_same_line() -> None:
    """Stop 51 v3 (yxgeee/MMT@057e1ea's `'  top-{:<4}{:12.1%}'`, idstcv/KDA@0f509e6's
    `{:6.2f}` meters): a value with fewer digits is padded with more blanks; the line is
    printed, with another figure, not missing, and its figures are compared."""
    original = "  top-1         100.0%\nAcc@1 100.00 (100.00)\n"
    rank0 = "  top-1          50.0%\nAcc@1   0.00 ( 10.00)\n"
    assert check_output(original, [rank0, ""]).passed
    figures = toend.check_figures(original, rank0)
    assert figures.compared == 2 and len(figures.differing) == 2


def test_rank_0_alone_printing_the_original_passes() -> None:
    original = "epoch 0: loss 0.5000\nepoch 1: loss 0.2500\n"
    result = check_output(original, ["epoch 0: loss 0.5001\nepoch 1: loss 0.2502\n", ""])
    assert result.passed and result.lines == 2
    assert result.describe() == "ok: rank 0 alone printed the original's 2 lines"


def test_the_printed_wrapper_of_the_model_is_the_originals() -> None:
    """Stop 39, v4-E: `print(model)` writes `DataParallel(` in the original and
    `DistributedDataParallel(` migrated: the same line, not one rank 0 lacks."""
    original = "DataParallel(\n  (module): Linear(in_features=4, out_features=1, bias=True)\n)\n"
    rank0 = original.replace("DataParallel(", "DistributedDataParallel(")
    assert check_output(original, [rank0, ""]).passed
    assert not check_output(original, [rank0, rank0]).passed  # rank 1 printing it too


def test_duplicated_and_missing_lines_are_found() -> None:
    original = "start\nepoch 0: loss 0.5\nepoch 1: loss 0.25\n"
    duplicated = check_output(original, [original, "epoch 0: loss 0.4\nrank 1 ready\n"])
    assert duplicated.duplicated == {1: ["epoch 0: loss 0.4"]}
    assert not duplicated.missing and not duplicated.passed
    assert "rank 1 also printed 1 of them ('epoch 0: loss 0.4')" in duplicated.describe()
    missing = check_output(original, ["start\nepoch 0: loss 0.5\n", ""])
    assert missing.missing == ["epoch 1: loss 0.25"]
    assert "rank 0 did not print 1 of them" in missing.describe()


def test_figures_are_compared_within_their_printed_precision() -> None:
    """Stop 39 (v3-A, lightweight OpenPose): rank 0 printed the original's lines with rank 0's
    half of an epoch figure, and the output check, which counts lines, said "ok". The figures
    check reads the numbers: the last printed digit's rounding passes, another value is shown
    with both lines, a clock's line is left out."""
    original = "epoch 0 loss 0.7131\ndev f1 34.86\nepoch took 3.2 s\nstart\n"
    rank0 = "epoch 0 loss 0.7132\ndev f1 32.50\nepoch took 1.9 s\nstart\n"
    figures = toend.check_figures(original, rank0)
    assert figures.compared == 2
    assert figures.differing == [("dev f1 34.86", "dev f1 32.50")]
    assert "1 of 2 lines hold other numbers ('dev f1 34.86' -> 'dev f1 32.50')" in (
        figures.describe()
    )
    same = toend.check_figures(original, original)
    assert not same.differing and same.describe().startswith("the same numbers in the 2 lines")


def test_figures_from_the_same_weights_are_a_difference() -> None:
    """Round 26 (MRN-ICASSP22's sharded test loader): with the final parameters equal and the
    ranks identical, a figure rank 0 prints otherwise is its share, not drift: said so, not
    "information only" (end_checks.py: the row says DIFFER, a note names the warnings)."""
    figures = toend.check_figures("test_acc 0.5312\n", "test_acc 0.5000\n")
    assert figures.describe().startswith("information only: ")
    said = figures.describe(same_weights=True)
    assert "final parameters agree" in said and "rank 0's share" in said, said
    assert not said.startswith("information only")


def test_a_logged_lines_figures_before_its_clock_are_compared() -> None:
    """Stop 65 v2 (Jerrypiglet/shaper-mirror@d850515): a line logged with `%(asctime)s`
    and a meter's `time:` field was left out whole, so rank 0's half of the validation
    accuracy passed as "the same numbers". The stamp is dropped and the figures before the
    first clock word are compared; a line with only a clock's numbers is still left out."""
    original = (
        "2026-12-03 06:36:23,547 shaper.trainer INFO: Epoch[1]-Val loss: 1.7359  "
        "cls_acc: 0.1875  time: 0.0072  data: 0.0006\n"
        "2026-12-03 06:36:23,600 shaper.trainer INFO: epoch took 3.2 s\n"
    )
    rank0 = (
        "2026-12-03 06:37:00,783 shaper.trainer INFO: Epoch[1]-Val loss: 1.4044  "
        "cls_acc: 0.3750  time: 0.0109  data: 0.0008\n"
        "2026-12-03 06:37:01,001 shaper.trainer INFO: epoch took 1.9 s\n"
    )
    figures = toend.check_figures(original, rank0)
    assert figures.compared == 1 and len(figures.differing) == 1
    same = rank0.replace("1.4044", "1.7359").replace("0.3750", "0.1875")
    assert not toend.check_figures(original, same).differing


def test_a_time_per_batch_written_after_its_unit_is_a_clock() -> None:
    """Round 34 (locuslab/trellisnet@ec1de0a, thunlp/DocRED@64622e6): pytorch/examples'
    `| ms/batch  5.67 |` and `ms/b 4.1` were compared as figures, and `--to-end` said
    "figures DIFFER" where only the clock did. A time per batch after its number
    (`12.3 ms/batch`) is a clock too; the loss beside it is still compared."""
    original = "| epoch   1 |   4 batches | lr 0.05 | ms/batch  5.67 | loss 0.5200\n"
    original += "| step 4 | ms/b 4.1 |\n12.3 ms/batch acc 0.7500\n"
    rank0 = original.replace("5.67", "2.10").replace("4.1", "1.9").replace("12.3", "8.8")
    figures = toend.check_figures(original, rank0)
    assert figures.compared == 3 and not figures.differing
    assert toend.check_figures(original, rank0.replace("0.7500", "0.2500")).differing


def test_the_copys_paths_are_written_as_the_users() -> None:
    original = "saved /home/u/proj/ckpt.pt\n"
    result = check_output(
        original,
        ["saved /tmp/v/project/ckpt.pt\n", ""],
        replacements=(("/tmp/v/project", "/home/u/proj"),),
    )
    assert result.passed


# -- files written once ---------------------------------------------------------------------
def test_files_written_by_two_ranks_are_found() -> None:
    shared = shared_writes([["/r/ckpt.pt", "/r/log.txt", "/r/ckpt.pt"], ["/r/ckpt.pt"], []])
    assert shared == {"/r/ckpt.pt": [0, 1]}
    assert shared_writes([["/r/a"], ["/r/b"]]) == {}
    causes = to_end_causes(check_output("", [""]), shared, lambda p: Path(p).name)
    assert [c.key for c in causes] == ["written_per_rank"]
    assert causes[0].detail == "ckpt.pt by ranks 0, 1"


def test_a_directory_only_another_rank_made_and_stdin_read_off_rank_zero() -> None:
    """Issue 29: rank 1 made runs/exp-2 (its own clock), rank 0 runs/exp-1; rank 1 read
    stdin too. A directory both made is fine."""
    made = own_directories([["/r/runs", "/r/runs/exp-1"], ["/r/runs", "/r/runs/exp-2"]])
    assert made == {"/r/runs/exp-2": [1]}
    assert own_directories([["/r/a", "/r/a/b"], ["/r/a/b"]]) == {}
    # every rank makes /r/out/cache with exist_ok, rank 1 first: it alone made /r/out (V5)
    assert own_directories([["/r/out/cache"], ["/r/out", "/r/out/cache"]]) == {}
    # ... but a sibling of rank 0's is still rank 1's own
    assert own_directories([["/r/out/a"], ["/r/out", "/r/out/b"]]) == {"/r/out/b": [1]}
    # `if not exists(d): makedirs(d)`, rank 1 first: rank 0 made nothing but writes into it
    assert own_directories([[], ["/r/out"]], ["/r/out/model.pt"]) == {}
    assert own_directories([[], ["/r/out-2"]], ["/r/out/model.pt"]) == {"/r/out-2": [1]}
    # folders the original made too, rank 1 first, rank 0 none of its own (stop 34, FFA-Net)
    original = ["/r/logs", "/r/samples"]
    assert own_directories([[], ["/r/logs", "/r/samples"]], [], original) == {}
    # a first free index in the wrong order: rank 0's exp_1 is no original's
    made_apart = own_directories([["/r/exp_1"], ["/r/exp_0"]], [], ["/r/exp_0"])
    assert made_apart == {"/r/exp_0": [1]}
    assert stdin_readers([1, 0]) == [] and stdin_readers([1, 2, 0]) == [1]
    causes = to_end_causes(
        check_output("", [""]), {}, lambda p: Path(p).name, made, stdin_readers([1, 1])
    )
    assert [c.key for c in causes] == ["directory_per_rank", "stdin_per_rank"]
    assert causes[0].detail == "exp-2 by rank 1" and causes[1].detail == "rank 1"


def test_write_log_records_directories_and_stdin_reads(tmp_path: Path) -> None:
    """The audit events os.mkdir and builtins.input, and sys.stdin's read methods (the
    wrapper install() puts in place), given directly: install() would hook this process."""
    import io

    log = WriteLog(())
    made = tmp_path / "run"
    made.mkdir()
    log._audit("os.mkdir", (str(made), 0o777, -1))
    log._audit("os.mkdir", (str(tmp_path / "gone"), 0o777, -1))
    assert log.made_directories() == [str(made)]
    log._audit("builtins.input", ("name? ",))
    stdin = _CountedStdin(io.StringIO("a\nb\n"), log)
    assert stdin.readline() == "a\n" and list(stdin) == ["b\n"]
    assert log.stdin_reads == 3


def test_write_log_keeps_outputs_and_ignores_noise(tmp_path: Path) -> None:
    log = WriteLog((str(tmp_path / "verify"),))
    kept = tmp_path / "ckpt.pt"
    kept.write_bytes(b"x")
    log._audit("open", (str(kept), "wb", os.O_WRONLY | os.O_CREAT | os.O_TRUNC))
    log._audit("open", (str(tmp_path / "data.csv"), "r", os.O_RDONLY))  # a read
    log._audit("open", (str(tmp_path / "verify" / "rank0" / "record.json"), "w", os.O_WRONLY))
    log._audit("open", (7, "w", os.O_WRONLY))  # a file descriptor
    log._audit("open", (str(tmp_path / "gone.tmp"), None, os.O_RDWR | os.O_CREAT))
    log.record(Path("relative.txt"))
    assert list(log.paths) == [
        str(kept),
        str(tmp_path / "gone.tmp"),
        os.path.abspath("relative.txt"),
    ]
    assert log.outputs() == [str(kept)]  # removed again: no output
    assert ignored_write("/x/__pycache__/m.cpython-311.pyc", ())
    assert ignored_write("/dev/null", ()) and ignored_write("/x/.cache.lock", ())
    assert ignored_write("/tmp/torchinductor_root/abc.py", ())
    assert not ignored_write("/x/checkpoints/last.pt", ("/x/check",))


def test_a_failed_exclusive_create_is_no_write(tmp_path: Path) -> None:
    """Round 30 (James-Teng/SRGAN@5fe7359): every rank ran `open(registry, "x")`; rank 1's
    raised FileExistsError and wrote nothing, yet the audit event (before the open) made it
    a write, and `--to-end` said "written by more than one rank". An exclusive create of a
    file that exists is no write; one of a new file is."""
    log = WriteLog(())
    exclusive = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    existing, new = tmp_path / "registry.csv", tmp_path / "fresh.csv"
    existing.write_text("run,lr\n")
    log._audit("open", (str(existing), "x", exclusive))
    log._audit("open", (str(new), "x", exclusive))
    assert list(log.paths) == [str(new)]


_APPEND_ONLY = """
import logging, os, subprocess, sys
from dp2ddp.verify.writes import WriteLog
log = WriteLog(())
log.install()
def other_process(code):  # another rank: its opens are not this process's
    subprocess.run([sys.executable, "-c", code], check=True)
other_process("open('shared.log', 'w').close()")
kept = [logging.FileHandler("shared.log")]  # never written (a quieted rank's handler)
other_process("open('shared.log', 'a').write('rank 0')")
kept.append(logging.FileHandler("fresh.log"))  # made empty here, never written
logging.FileHandler("closed.log").close()
written = logging.FileHandler("written.log")
written.emit(logging.makeLogRecord({"msg": "a line"}))
with open("appended.txt", "a") as f:
    f.write("x")
with open("over.txt", "w"):
    pass
import tempfile  # opens the folder itself for writing (O_TMPFILE), as numba's cache test
tempfile.TemporaryFile(dir=".").close()
kept.append(tempfile.TemporaryFile(dir="."))
print(sorted(os.path.basename(p) for p in log.outputs()))
"""


def test_a_file_only_opened_to_append_to_is_not_written(tmp_path: Path) -> None:
    """verify --to-end's false alarm (rnn-transducer: rank 1's FileHandler on rank 0's log,
    no line written): an append-only open is a write when this process's bytes went in
    (its descriptor moved), or the file, closed, changed since; any other open for writing
    is one. A folder opened for an unnamed temporary file (`tempfile.TemporaryFile`, numba's
    test that a cache folder is writable: GCommandsPytorch's /tmp and librosa's __pycache__,
    "written by ranks 0, 1") is no file written. Run in a child process: install() hooks its
    process for good."""
    done = subprocess.run(
        [sys.executable, "-c", _APPEND_ONLY], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    outputs = ast.literal_eval(done.stdout.strip())
    assert outputs == ["appended.txt", "over.txt", "written.log"]
    written = ["appended.txt", "written.log"]
    assert toend.shared_writes([outputs, written]) == {p: [0, 1] for p in written}


# -- exits ------------------------------------------------------------------------------------
TORCHRUN_FAILURE = """
Root Cause (first observed failure):
[0]:
  time      : 2026-11-23_13:49:19
  host      : localhost
  rank      : 1 (local_rank: 1)
  exitcode  : -6 (pid: 7589)
  error_file: <N/A>
  traceback : Signal 6 (SIGABRT) received by PID 7589
"""


def test_torchs_known_abort_at_exit_is_recognised_precisely() -> None:
    codes = torchrun_exit_codes(TORCHRUN_FAILURE)
    assert codes == {1: -6}
    abort = f"some warning\n{KNOWN_EXIT_ABORT}\n"
    assert known_exit_aborts(1, [True, True], ["", abort], codes, True) == [1]
    # the line missing, another exit code, an unfinished script, nothing parsed: a failure
    assert known_exit_aborts(1, [True, True], ["", "Segmentation fault"], codes, True) is None
    assert known_exit_aborts(1, [True, True], ["", abort], {1: 1}, True) is None
    assert known_exit_aborts(1, [True, False], ["", abort], codes, True) is None
    assert known_exit_aborts(1, [True, True], ["", abort], {}, True) is None
    assert known_exit_aborts(0, [True, True], ["", ""], {}, True) is None
    # a finished rank torchrun stopped (-15) after the other's abort; never -15 alone
    assert known_exit_aborts(1, [True, True], ["", abort], {0: -15, 1: -6}, True) == [0, 1]
    assert known_exit_aborts(1, [True, True], ["", ""], {0: -15, 1: -6}, True) is None
    assert known_exit_aborts(1, [True, True], ["", abort], {0: -15}, True) is None
    assert known_exit_aborts(1, [True, False], ["", abort], {0: -15, 1: -6}, True) is None
    # the original (one process): its own exit code
    assert known_exit_aborts(-6, [True], [abort], {}, False) == [0]
    assert known_exit_aborts(-11, [True], [abort], {}, False) is None


def test_a_torchrun_console_with_only_the_known_abort_is_recognised() -> None:
    console = f"world 2 final 1.12\n{KNOWN_EXIT_ABORT}\n{TORCHRUN_FAILURE}"
    assert torchrun_console_shows_known_abort(console, "train.py")
    closed = console.replace(
        "Root Cause", "  rank      : 0 (local_rank: 0)\n  exitcode  : -15\nRoot Cause"
    )
    assert torchrun_console_shows_known_abort(closed, "train.py")
    # no abort message, another root cause, another rank's code, the script raised: a failure
    assert not torchrun_console_shows_known_abort(TORCHRUN_FAILURE, "train.py")
    assert not torchrun_console_shows_known_abort(
        console.replace("-6 (pid", "-11 (pid"), "train.py"
    )
    other = closed.replace("exitcode  : -15", "exitcode  : 1")
    assert not torchrun_console_shows_known_abort(other, "train.py")
    raised = f'  File "/x/train.py", line 3, in <module>\n{console}'
    assert not torchrun_console_shows_known_abort(raised, "train.py")


def test_final_distance_reports_the_worst_parameter() -> None:
    a = {"p0": Vector((4,), array("d", [1.0] * 4)), "p1": Vector((2,), array("d", [1.0, 1.0]))}
    b = {"p0": Vector((4,), array("d", [1.0] * 4)), "p1": Vector((2,), array("d", [1.0, 1.5]))}
    rel, name = final_distance(a, b, {"p1": "fc.bias"}) or (0.0, "")
    assert name == "fc.bias" and rel == pytest.approx(0.5 / 2**0.5)
    assert final_distance({}, {}, {}) is None


# -- global step count -----------------------------------------------------------------------
def _recorder(tmp_path: Path, steps: int) -> tuple[Recorder, list[str]]:
    options = protocol.RunnerOptions(out=str(tmp_path), steps=steps, seed=0, file_attr="x.py")
    recorder = Recorder(options, 0, 1, tmp_path)
    stops: list[str] = []
    recorder.stop = lambda: stops.append("stop")  # type: ignore[method-assign]
    return recorder, stops


def _step(recorder: Recorder, optimizer: torch.optim.Optimizer, model: torch.nn.Module) -> None:
    optimizer.zero_grad()
    model(torch.ones(1, 2)).sum().backward()
    recorder._pre_step(optimizer)
    optimizer.step()
    recorder._post_step(optimizer)


def test_k_counts_steps_globally_over_an_optimizer_per_epoch(tmp_path: Path) -> None:
    model = torch.nn.Linear(2, 1)
    recorder, stops = _recorder(tmp_path, steps=3)
    for _epoch in range(2):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(2):
            if not stops:
                _step(recorder, optimizer, model)
    assert stops == ["stop"] and len(recorder.events) == 3
    assert [e["optimizer"] for e in recorder.events] == [0, 0, 1]
    # the same weights keep their keys under the new optimizer: one initial snapshot each
    assert set(recorder.init) == {"p0", "p1"}
    assert all(set(u) == {"p0", "p1"} for u in recorder.updates)


def test_a_gans_two_optimizers_interleave_step_by_step(tmp_path: Path) -> None:
    generator, critic = torch.nn.Linear(2, 1), torch.nn.Linear(2, 1)
    opt_g = torch.optim.SGD(generator.parameters(), lr=0.1)
    opt_d = torch.optim.SGD(critic.parameters(), lr=0.1)
    recorder, stops = _recorder(tmp_path, steps=4)
    for _ in range(2):
        _step(recorder, opt_d, critic)
        _step(recorder, opt_g, generator)
    assert stops == ["stop"]
    assert [e["optimizer"] for e in recorder.events] == [0, 1, 0, 1]
    assert [set(u) for u in recorder.updates] == [{"p0", "p1"}, {"p2", "p3"}] * 2


def test_a_non_finite_step_ends_the_recording(tmp_path: Path) -> None:
    model = torch.nn.Linear(2, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=float("inf"))
    recorder, stops = _recorder(tmp_path, steps=10)
    _step(recorder, optimizer, model)
    assert stops == ["stop"] and recorder.events[0]["finite"] is False


def test_to_end_goes_on_after_k_and_only_counts(tmp_path: Path) -> None:
    options = protocol.RunnerOptions(
        out=str(tmp_path), steps=2, seed=0, file_attr="x.py", to_end=True
    )
    recorder = Recorder(options, 0, 1, tmp_path)
    model = torch.nn.Linear(2, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(5):
        _step(recorder, optimizer, model)
    assert len(recorder.events) == 2 and recorder.later_steps == 3
    assert (tmp_path / protocol.TENSORS).exists()
    recorder.finish(protocol.FINISHED)
    final = RankRecord(0, tmp_path, protocol.FINISHED, {}, {}, "", "").final()
    assert final["p0"].shape == (1, 2)
    assert list(final["p0"].values) == model.weight.detach().flatten().tolist()


# -- non-finite runs ------------------------------------------------------------------------
def _events(finite: list[bool]) -> list[dict[str, object]]:
    return [{"index": i + 1, "finite": f} for i, f in enumerate(finite)]


def test_non_finite_classification() -> None:
    assert nonfinite(_events([True, True]), _events([True, True]), None) is None
    both = nonfinite(_events([True, False]), _events([True, False]), 2)
    assert both == NonFinite(2, 2, 2) and both.comparable_failure
    cause = nonfinite_cause(both)
    assert cause.title == "both runs diverge (non-finite) at step 2: not comparable"
    assert "learning rate" in cause.fix
    earlier = nonfinite(_events([True, False]), _events([True, False]), 1)
    assert earlier is not None and not earlier.comparable_failure
    assert "after their updates differed from step 1" in nonfinite_cause(earlier).title
    one = nonfinite(_events([True, True, True]), _events([True, False]), 2)
    assert one is not None and not one.comparable_failure
    assert (
        nonfinite_cause(one).title == "only the migrated run goes non-finite (NaN/inf), at step 2"
    )
    first = nonfinite(_events([True, True, False]), _events([True, False]), 2)
    assert first is not None and not first.comparable_failure
    assert nonfinite_cause(first).title == "the migrated run goes non-finite first, at step 2"


# -- the project copy ------------------------------------------------------------------------
def test_project_root_is_the_nearest_marked_folder(tmp_path: Path) -> None:
    (tmp_path / "repo" / "src" / "pkg").mkdir(parents=True)
    entry = tmp_path / "repo" / "src" / "pkg" / "train.py"
    entry.write_text("")
    assert project_root(entry) == (tmp_path / "repo" / "src" / "pkg").resolve()
    (tmp_path / "repo" / "pyproject.toml").write_text("")
    assert project_root(entry) == (tmp_path / "repo").resolve()
    (tmp_path / "repo" / "src" / ".git").mkdir()
    assert project_root(entry) == (tmp_path / "repo" / "src").resolve()


def test_the_copy_skips_what_discovery_skips_and_has_a_limit(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    for folder in ("data", ".git", ".venv", "__pycache__", "pkg", "env311"):
        (root / folder).mkdir(parents=True)
    (root / "env311" / "pyvenv.cfg").write_text("home = /usr/bin\n")  # a virtualenv
    (root / "train.py").write_text("print(1)\n")
    (root / "pkg" / "mod.py").write_text("x = 1\n")
    (root / "data" / "points.csv").write_text("1,2\n")
    (root / ".git" / "HEAD").write_text("ref\n")
    (root / ".venv" / "big.bin").write_bytes(b"0" * 1000)
    outside = tmp_path / "shared.csv"
    outside.write_text("3,4\n")
    (root / "data" / "link.csv").symlink_to(outside)
    copy = tmp_path / "copy"
    copy_project(root, copy)
    copied = sorted(str(p.relative_to(copy)) for p in copy.rglob("*") if not p.is_dir())
    assert copied == ["data/link.csv", "data/points.csv", "pkg/mod.py", "train.py"]
    assert (copy / "data" / "link.csv").read_text() == "3,4\n"
    with pytest.raises(ProjectError, match="to copy, more than 0 MiB; largest: "):
        copy_project(root, tmp_path / "copy2", limit=5)


def test_the_copy_never_copies_itself(tmp_path: Path) -> None:
    """No project marker up from /tmp/x/train.py: the project is /tmp/x, which may hold
    verify's own temporary folder."""
    (tmp_path / "train.py").write_text("")
    (tmp_path / "work").mkdir()
    copy = tmp_path / "work" / "project"
    copy_project(tmp_path, copy)
    assert (copy / "train.py").exists()
    assert not (copy / "work" / "project").exists()


def _git_marked_project(tmp_path: Path) -> Path:
    """.git is the only root marker; scripts/train.py puts `lib` (relative to the working
    folder, the root) on sys.path and imports lib/pkg/io.py, which appends to a file."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / "scripts").mkdir()
    (root / "lib" / "pkg").mkdir(parents=True)
    (root / "lib" / "pkg" / "__init__.py").write_text("")
    (root / "lib" / "pkg" / "io.py").write_text(
        "def log_line(path, text):\n    with open(path, 'a') as f:\n        f.write(text)\n"
    )
    entry = root / "scripts" / "train.py"
    entry.write_text(
        "import sys\n\nimport torch\nimport torch.nn as nn\n\nsys.path.insert(0, 'lib')\n"
        "from pkg.io import log_line  # noqa: E402\n\n"
        "model = nn.DataParallel(nn.Linear(4, 1))\n"
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "loss = model(torch.randn(8, 4)).sum()\nloss.backward()\nopt.step()\n"
        "log_line('log.txt', 'done\\n')\n"
    )
    return entry


def test_verify_migrates_the_program_migrate_migrates(tmp_path: Path) -> None:
    """V1 (docs/real-world.md, stop 30): the copy leaves .git out, its only root marker; the
    copy's migration must still take the folder migrate took for the root, and migrate the
    same files (before: the entry's folder, `lib` not found, lib/pkg/io.py left as it was
    and its append run by every rank: a false NOT EQUIVALENT)."""
    from dp2ddp.options import MigrateOptions
    from dp2ddp.program.folder import plan_paths
    from dp2ddp.verify.project import migrate_copy

    entry = _git_marked_project(tmp_path)
    root = entry.parent.parent
    plan = plan_paths([str(entry)], (), MigrateOptions())
    by_migrate = sorted(os.path.relpath(p, root) for p in plan.changed_paths())
    # pkg is imported from outside the entry's folder: its helpers in its own package (stop 47)
    assert by_migrate == [
        "lib/pkg/_dp2ddp.py",
        "lib/pkg/io.py",
        "scripts/_dp2ddp.py",
        "scripts/train.py",
    ]
    project = migrate_copy(entry, tmp_path / "work", MigrateOptions())
    assert project.root == root.resolve()
    assert not (project.copy / ".git").exists()
    assert sorted(project.files) == by_migrate
    assert "ddp_is_main()" in (project.copy / "lib" / "pkg" / "io.py").read_text()
    assert entry.read_text().count("DataParallel") == 1  # the user's files are only read


def test_verify_copies_the_folders_the_program_reaches(tmp_path: Path) -> None:
    """Without a root marker the root is the entry's folder; `_init_paths` puts its parent
    on sys.path (Y1): verify copies and migrates the widened root, as migrate does."""
    from dp2ddp.options import MigrateOptions
    from dp2ddp.verify.project import migrate_copy

    entry = _git_marked_project(tmp_path)
    root = entry.parent.parent
    for marker in (root / ".git" / "HEAD", root / ".git"):
        marker.unlink() if marker.is_file() else marker.rmdir()
    text = entry.read_text().replace("sys.path.insert(0, 'lib')", "import _init_paths")
    entry.write_text(text)
    (entry.parent / "_init_paths.py").write_text(
        "import os.path as osp\nimport sys\n\n"
        "sys.path.insert(0, osp.join(osp.dirname(__file__), '..', 'lib'))\n"
    )
    project = migrate_copy(entry, tmp_path / "work", MigrateOptions())
    assert project.root == root.resolve()
    assert sorted(project.files) == [
        "lib/pkg/_dp2ddp.py",
        "lib/pkg/io.py",
        "scripts/_dp2ddp.py",
        "scripts/train.py",
    ]


# -- process trees ---------------------------------------------------------------------------
def test_children_are_read_from_the_parent_alone() -> None:
    """observe() follows /proc/PID/task/*/children (a few reads) instead of every process's
    stat; both ways must find the same children."""
    import subprocess

    from dp2ddp.verify.proctree import _children_of, _children_table

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        found = _children_of(os.getpid())
        if found is None:
            pytest.skip("this kernel has no /proc/PID/task/TID/children")
        assert child.pid in found
        assert child.pid in _children_table()[os.getpid()]
        assert _children_of(2**22 + 7) == []  # no such process
    finally:
        child.kill()
        child.wait()


def test_to_end_rows_are_rendered_beside_a_failed_step_comparison() -> None:
    """Both parts of `verify --to-end` are reported whatever the step comparison found."""
    import json

    from dp2ddp.verify.render import to_json, to_markdown, to_text
    from dp2ddp.verify.report import NOT_EQUIVALENT, Cause, ParamRow, VerifyReport

    report = VerifyReport(
        verdict=NOT_EQUIVALENT,
        exit_code=1,
        original="train.py",
        migrated="train_ddp.py",
        world_size=2,
        backend="gloo",
        steps_requested=3,
        steps_compared=3,
        first_diverging_step=1,
        worst_parameters=(ParamRow("fc.weight", (1, 8), 1, 0.5, 0.1, False),),
        causes=(
            Cause("sampler_missing", "every rank fed the same samples", "ranks overlap"),
            Cause("written_per_rank", "a file written by every rank", "features.mat by ranks 0, 1"),
        ),
        to_end={
            "exits": "ok: the original and all 2 ranks ended their script and exited 0",
            "files": "NOT once: features.mat by ranks 0, 1",
        },
    )
    text = to_text(report)
    assert "step 1" in text and "fc.weight" in text
    assert "  to end: files      NOT once: features.mat by ranks 0, 1" in text
    assert "to end: exits" in text
    markdown = to_markdown(report)
    assert "| to end: files | NOT once: features.mat by ranks 0, 1 |" in markdown
    assert "| first divergence | step 1 |" in markdown
    data = json.loads(to_json(report))
    assert data["to_end"]["files"] == "NOT once: features.mat by ranks 0, 1"
    assert data["first_diverging_step"] == 1 and not data["equivalent"]


# -- a deliberate exit status (V1) -----------------------------------------------------------
def _exited(rank: int, status: str | None, error: dict[str, str] | None = None) -> RankRecord:
    data: dict[str, Any] = {"events": [{"index": 1}]}
    if error is not None:
        data["error"] = error
    return RankRecord(rank, Path("/nonexistent"), status, data, {}, "", "")


def _system_exit(code: object) -> dict[str, str]:
    return {"time": "1.0", "type": "SystemExit", "message": f"exited with status {code}"}


def test_a_status_both_runs_choose_is_an_end_not_a_crash(tmp_path: Path) -> None:
    """LMescheder/GAN_stability ends by `exit(3)` (a restart protocol): the original exits 3
    without a traceback, the migrated rank 0 exits 3 and torchrun stops rank 1 before it
    saves. Compared to the end, with a note, no "crashed"; a different status, an
    exception, or `sys.exit("message")` stay failures."""
    from dp2ddp.verify import launch
    from dp2ddp.verify.config import VerifyConfig
    from dp2ddp.verify.failures import RunFailures, deliberate_exit, exit_status
    from dp2ddp.verify.session import Scripts

    original = _exited(0, protocol.ERROR, _system_exit(3))
    ranks = [_exited(0, protocol.ERROR, _system_exit(3)), _exited(1, None)]
    assert exit_status(original) == 3 and exit_status(ranks[1]) is None
    assert deliberate_exit(original, ranks) == 3
    assert deliberate_exit(original, [_exited(0, protocol.ERROR, _system_exit(4))]) is None
    assert deliberate_exit(original, [_exited(0, protocol.FINISHED)]) is None
    crash = {"time": "1.0", "type": "ValueError", "message": "bad"}
    assert deliberate_exit(original, [ranks[0], _exited(1, protocol.ERROR, crash)]) is None
    assert exit_status(_exited(0, protocol.ERROR, _system_exit("'stop'"))) is None

    script = tmp_path / "train.py"
    scripts = Scripts(script, script, script, str(script), "", "")
    results = {
        launch.ORIGINAL: launch.RunResult(launch.ORIGINAL, 3, 1.0),
        launch.MIGRATED: launch.RunResult(launch.MIGRATED, 1, 1.0),
    }
    config = VerifyConfig(script, to_end=True)
    judge = RunFailures(config, scripts, tmp_path, {})
    assert judge.collect(results, original, ranks) == []
    assert any("exited with status 3" in note and "deliberate" in note for note in judge.notes)
    other = [_exited(0, protocol.ERROR, _system_exit(4)), _exited(1, None)]
    failures = RunFailures(config, scripts, tmp_path, {}).collect(results, original, other)
    assert [f.reason for f in failures] == ["crashed", "crashed"], failures


def test_a_wrap_reached_only_by_a_run_time_import_is_named_not_denied(tmp_path: Path) -> None:
    """Stop 39, v4-D (haoxiangsnr/Wave-U-Net-for-Speech-Enhancement@64e1aa2): the trainer
    that wraps is imported by a name from the configuration; migrate says DP034, so verify
    names that module instead of "no DataParallel found"."""
    from dp2ddp.options import MigrateOptions
    from dp2ddp.verify.project import migrate_copy

    project = tmp_path / "p"
    (project / "trainer").mkdir(parents=True)
    (project / "trainer" / "__init__.py").write_text("")
    (project / "trainer" / "base.py").write_text(
        "import torch\n\n\nclass Trainer:\n    def __init__(self, model):\n"
        "        self.model = torch.nn.DataParallel(model)\n"
    )
    (project / "train.py").write_text(
        "import importlib\nimport json\n\nimport torch\n\n\n"
        "def main():\n    config = json.load(open('config.json'))\n"
        "    cls = importlib.import_module(config['module']).Trainer\n"
        "    cls(torch.nn.Linear(1, 1))\n\n\nif __name__ == '__main__':\n    main()\n"
    )
    with pytest.raises(ProjectError, match=r"not migrated: .*DP034.*trainer/base\.py"):
        migrate_copy(project / "train.py", tmp_path / "work", MigrateOptions())


def test_the_runs_read_stdin_from_an_empty_pipe_not_dev_null(tmp_path: Path) -> None:
    """The runs' stdin is an empty pipe whose writer is closed: a read is at its end whatever
    /dev/null is. On this project's test machine /dev/null was a plain file other processes
    wrote into, and under load a rank of test_verify_to_end's run-directory case read a line
    (`{"epochs": 2}`) or null bytes ("embedded null byte" in os.makedirs) where it expected
    nothing (stop 49 g2)."""
    code = "import os, stat, sys; print(stat.S_ISFIFO(os.fstat(0).st_mode), repr(sys.stdin.read()))"
    log = tmp_path / "log"
    spec = launch.RunSpec("original", [sys.executable, "-c", code], dict(os.environ), tmp_path,
                          log, 60.0)  # fmt: skip
    running = launch._start(spec)
    assert running.process.wait(60) == 0
    assert log.read_text().strip() == "True ''"


def test_a_clocks_numbers_alone_are_left_out_of_a_line() -> None:
    """Round 29 (stop 77): everything after the first clock word was dropped, so a meter's
    `Time 0.12 (0.15) Loss 0.52` compared no loss, and `Cost 0.4 sec` (the number before its
    unit) was compared as a figure. Now each clock reading alone is taken out."""
    original = "Time 0.12 (0.15) Loss 0.5200\nepoch 1 cost 2.5 sec acc 0.75\n"
    rank0 = "Time 0.31 (0.20) Loss 0.4900\nepoch 1 cost 1.1 sec acc 0.75\n"
    figures = toend.check_figures(original, rank0)
    assert figures.compared == 2
    assert figures.differing == [(original.splitlines()[0], rank0.splitlines()[0])]
    same = rank0.replace("0.4900", "0.5200")
    assert not toend.check_figures(original, same).differing


def test_figures_logged_to_stderr_are_compared() -> None:
    """Round 36 (yassouali/CCT@65d4e5b): an epoch's figures logged through `logging` (its
    default handler writes to stderr) were rank 0's half while `--to-end` compared stdout's
    PARAMSUM alone. The logged lines are compared too; a warning, a traceback and torch's
    native log lines are not the program's figures."""
    stderr = (
        "train.py:3: UserWarning: old api 12\n  warnings.warn('old api 12')\n"
        "[W1206 11:42:16.000 socket.cpp:7] port 29500 busy\n"
        "LOG epoch 0 loss 1.2169 n 16\n"
        "Traceback (most recent call last):\n  File 'x.py', line 3\nValueError: 7\n"
        "LOG epoch 1 loss 1.0000 n 16\n"
    )
    logged = toend.logged_text(stderr)
    assert logged.splitlines() == ["LOG epoch 0 loss 1.2169 n 16", "LOG epoch 1 loss 1.0000 n 16"]
    rank0 = logged.replace("1.2169 n 16", "1.1673 n 8")
    figures = toend.check_figures("PARAMSUM 0.5\n" + logged, "PARAMSUM 0.5\n" + rank0)
    assert figures.compared == 3
    assert figures.differing == [("LOG epoch 0 loss 1.2169 n 16", "LOG epoch 0 loss 1.1673 n 8")]
