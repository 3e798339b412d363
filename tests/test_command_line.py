"""The argparse options a module declares (transforms/analysis/command_line.py): DP003's
way out reads them to name an option that switches the DDP path off, or the module that
parses torch.distributed.launch's `--local_rank`."""

from __future__ import annotations

from dp2ddp.transforms.analysis.command_line import declared, launch_argument, spelled

SOURCE = """\
import argparse, os
p = argparse.ArgumentParser()
p.add_argument("data")
p.add_argument("-r", "--local_rank", type=int, default=0)
p.add_argument("--distributed", action="store_true")
p.add_argument("--amp", default=False, dest="use_amp")
p.add_argument("--no-shuffle", action="store_false")
p.add_argument("--multi-gpu", action="store_true", default=True)
"""


def test_options_their_attributes_and_whether_they_are_off_unless_given() -> None:
    line = declared(SOURCE, "run.py")
    found = {a.dest: (a.options, a.off, a.line) for a in line.arguments}
    assert "data" not in found  # positional: given on every command line
    assert found["local_rank"] == (("-r", "--local_rank"), False, 4)
    assert found["distributed"] == (("--distributed",), True, 5)
    assert found["use_amp"] == (("--amp",), True, 6)
    assert found["no_shuffle"][1] is False and found["multi_gpu"][1] is False
    assert not line.reads_local_rank
    launch = launch_argument(line)
    assert launch is not None and spelled(launch) == "-r/--local_rank"


def test_a_program_that_reads_local_rank_has_no_launch_argument_to_name() -> None:
    line = declared(SOURCE + 'rank = int(os.environ["LOCAL_RANK"])\n', "run.py")
    assert line.reads_local_rank and launch_argument(line) is None
    assert declared("def broken(:\n", "x.py").arguments == ()
