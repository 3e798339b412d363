"""verify's causes from code only where the original ran it (verify/reach.py), and BatchNorm's
chunks measured on the samples (data_evidence.same_chunks): units, no launch (stop 49 g2)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dp2ddp.verify.data_evidence import same_chunks
from dp2ddp.verify.reach import Reached
from dp2ddp.verify.records import RankRecord

PROGRAM = """\
class IRG:
    def dist(self, f):
        return f * f  # stands for f @ f.T


class SP:
    def forward(self, f):
        return f * f


def main(mode):
    if mode == "irg":
        criterion = IRG()
    else:
        criterion = SP()
    return criterion
"""


def _record(data: dict[str, Any], rank: int = 0) -> RankRecord:
    return RankRecord(rank, Path("."), "stopped", data, {}, "", "")


_TRACED_RUN = """\
import json, sys
from pathlib import Path
from dp2ddp.verify.reach import LineReach

path = Path(sys.argv[1])
namespace = {}
reach = LineReach()
reach.install()
try:
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    namespace["SP"]().forward(2)
    namespace["main"]("sp")
finally:
    reach.stop()
Path(sys.argv[2]).write_text(json.dumps(reach.record()))
"""


def _traced(tmp_path: Path, script: str, *args: str) -> None:
    """Run `script` (which installs a LineReach) in a process of its own, as verify's runner
    does. Not in the xdist worker: a line tracer installed there once spun for 25 minutes on
    one line of pathlib's `__str__` (stop 50's CI rehearsal, CPython 3.11.7), and the fork
    below can leave a child of that threaded process stuck."""
    subprocess.run(
        [sys.executable, "-c", script, *args],
        check=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )


def _run(tmp_path: Path) -> tuple[Path, Reached]:
    path = tmp_path / "train.py"
    path.write_text(PROGRAM)
    out = tmp_path / "record.json"
    _traced(tmp_path, _TRACED_RUN, str(path), str(out))
    return path, Reached(_record(json.loads(out.read_text())))


def test_lines_the_run_reached_and_a_definition_by_its_body(tmp_path: Path) -> None:
    path, reached = _run(tmp_path)
    assert reached.ran(str(path), 15)  # criterion = SP()
    assert not reached.ran(str(path), 13)  # criterion = IRG(): another mode
    assert reached.ran(str(path), 7)  # SP.forward's def ran when its body did
    assert not reached.ran(str(path), 2)  # IRG.dist's def line ran at import, its body not


def test_a_dp040_keeps_the_places_of_the_classes_that_ran(tmp_path: Path) -> None:
    path, reached = _run(tmp_path)
    p = str(path)
    told = (
        f"{p}:13:9: DP040 loss compares samples across the batch: criterion() is called on the "
        f"wrapped model's output and 2 of the classes it is bound to compare the batch's rows "
        f"in forward() ({p}:3: f @ f.T in self.dist(), reached from forward(); {p}:8: f @ f.T):"
        " where it is one of them, each rank's loss sees its own part of each batch"
    )
    by_name = f"{p}:2:5: DP040 loss compares samples across the batch: IRG.dist() (f @ f.T)"
    kept = reached.warnings((told, by_name))
    assert len(kept) == 1 and f"({p}:8: f @ f.T)" in kept[0], kept
    sites = (f"{p}:2 IRG.dist() (f @ f.T)",)
    assert reached.pair_losses(sites, kept) == (f"{p}:8: f @ f.T",)


def test_without_the_record_every_cause_stays(tmp_path: Path) -> None:
    reached = Reached(_record({}))
    assert reached.ran(str(tmp_path / "train.py"), 13)
    assert reached.warnings(("x.py:3:1: DP043 a mean",)) == ("x.py:3:1: DP043 a mean",)


def _window(forwards: list[int], inputs: list[str]) -> dict[str, Any]:
    return {"forwards": {"0": forwards}, "inputs": {"0": inputs}}


def test_ranks_fed_dataparallels_chunks() -> None:
    original = _record({"windows": [_window([4, 2], ["a", "b", "c", "d", "e", "f"])]})
    ranks = [
        _record({"windows": [_window([2, 1], ["a", "b", "e"])]}, 0),
        _record({"windows": [_window([2, 1], ["c", "d", "f"])]}, 1),
    ]
    assert same_chunks(original, ranks, 1)
    strided = [
        _record({"windows": [_window([2, 1], ["a", "c", "e"])]}, 0),
        _record({"windows": [_window([2, 1], ["b", "d", "f"])]}, 1),
    ]
    assert not same_chunks(original, strided, 1)
    assert not same_chunks(_record({"windows": [{}]}), ranks, 1)  # nothing compared


def test_chunks_are_compared_on_the_loaded_samples() -> None:
    """A GAN's discriminator is fed loaded images and the generator's fakes, whose
    fingerprints round apart between the runs (DeblurGANv2 from step 3): the loaded ones are
    compared, the fakes by their count."""
    loaded = {"loaded": ["a", "b", "c", "d"]}
    original = _record({"windows": [{**_window([4, 4], list("abcdWXYZ")), **loaded}]})
    ranks = [
        _record({"windows": [{**_window([2, 2], list("abwx")), **loaded}]}, 0),
        _record({"windows": [{**_window([2, 2], list("cdyz")), **loaded}]}, 1),
    ]
    assert same_chunks(original, ranks, 1)
    swapped = [ranks[1], _record({"windows": [{**_window([2, 2], list("abyz")), **loaded}]}, 1)]
    assert not same_chunks(original, swapped, 1)


_FORKED_RUN = """\
import json, os, sys
from pathlib import Path
from dp2ddp.verify.reach import LineReach

out, path = Path(sys.argv[1]), Path(sys.argv[2])
namespace = {}
exec(compile(path.read_text(), str(path), "exec"), namespace)
reach = LineReach(out)
reach.install()
try:
    pid = os.fork()
    if pid == 0:
        namespace["get"](1)
        os._exit(0)
    os.waitpid(pid, 0)
finally:
    reach.stop()
(out / "record.json").write_text(json.dumps(reach.record()))
"""


def test_lines_a_forked_worker_ran_are_reached(tmp_path: Path) -> None:
    """A DataLoader worker is a forked child that ends by os._exit: the lines it runs first
    (a dataset's __getitem__) are appended to the run's folder and read with the record.
    The fork happens in a process of its own, single-threaded as a runner is: forking the
    test worker (execnet's threads, torch's pools) can leave the child stuck."""
    path = tmp_path / "data.py"
    path.write_text("def get(i):\n    return i + 1\n")
    _traced(tmp_path, _FORKED_RUN, str(tmp_path), str(path))
    data = json.loads((tmp_path / "record.json").read_text())
    record = RankRecord(0, tmp_path, "stopped", data, {}, "", "")
    assert Reached(record).ran(str(path), 2)


# -- the tracer's cost outside the program (stop 51, helper s4) --------------------------------
_CHEAP_RUN = """\
import shutil, sys
from pathlib import Path
from dp2ddp.verify import reach as R

prog = Path(sys.argv[1])
prog.write_text("from pathlib import Path\\ndef f(k):\\n    return str(Path('/tmp') / str(k))\\n")
r = R.LineReach()
looked, lined = [], set()
own, line = r._own, r._line
r._own = lambda code: (looked.append(code), own(code))[1]
r._line = lambda frame, ev, arg: (lined.add(frame.f_code.co_filename), line(frame, ev, arg))[1]
namespace = {}
r.install()
exec(compile(prog.read_text(), str(prog), "exec"), namespace)
for k in range(2000):
    namespace["f"](k)
r.stop()
if sys.version_info < (3, 12):
    assert len(looked) == len(set(looked)) < 40, len(looked)  # each code object looked up once
    assert lined == {str(prog)}, lined  # line events only in the program's frames
else:
    assert looked and not lined, lined  # sys.monitoring: no trace function at all
assert r.record()["reached"] == {str(prog): [1, 2, 3]}, r.record()
print("ok")
"""


def test_the_tracer_looks_a_code_object_up_once_and_traces_no_library_line(
    tmp_path: Path,
) -> None:
    """stop 50's CI hang was an xdist worker spinning in pathlib's `__str__` with this tracer
    installed in-process (CPython 3.11.7). Outside the program the tracer is bounded: a code
    object is looked up once (then one dict lookup per call), a library frame gets no local
    tracer and so no line event; on 3.12+ sys.monitoring replaces the trace function (a
    library code object is disabled after its first start). In a process of its own."""
    _traced(tmp_path, _CHEAP_RUN, str(tmp_path / "prog.py"))


def _newer_python() -> str | None:
    for name in ("python3.13", "python3.12"):
        found = shutil.which(name)
        if found and subprocess.run([found, "-c", "0"], capture_output=True).returncode == 0:
            return found
    return None


def test_the_tracer_on_python_3_12_uses_sys_monitoring(tmp_path: Path) -> None:
    """The same run on Python 3.12+ where one is installed (the suite runs on 3.11): the lines
    come from sys.monitoring, with no trace function (reach.py imports no torch)."""
    python = _newer_python()
    if python is None:
        pytest.skip("no Python 3.12+ on PATH")
    subprocess.run(
        [python, "-c", _CHEAP_RUN, str(tmp_path / "prog.py")],
        check=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
