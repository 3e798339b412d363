"""Ranks agree on what they share (issue 29), end to end: the scripts of tests/e2e_agreement/
migrated and run under torchrun x2 from a clean folder, twice: once with rank 0 made slower
and once with rank 1 (E2E_SLOW_RANK, read by the scripts), every script in one launch each.

Classes: a run directory stamped by the clock into an attribute, a dict item and a helper's
return (stamped_attribute); a run directory named by the first free index (first_free_index); a
preprocess-once cache (also one a method returns early from when it exists) and a feature file
written on rank 0 and read by every rank (preprocess_cache); an answer piped into stdin
(stdin_answer); a log directory removed on rank 0 and made again by every rank, and an exists-
check that raises before a directory is made (rmtree_makedirs; at module level:
rmtree_module_level); a run name from another module's helper and a checkpoint saved in another
module (across_modules); a checkpoint helper of another module called under each rank's own
clock (clock_checkpoint: no barrier in it, or the ranks hang); a checkpoint named by each
rank's clock, saved on rank 0 and loaded by another module through an attribute
(stamped_checkpoint); files read back through paths no text matches: a loop variable, a
listing of the written directory, a dict item (unmatched_paths); a cache folder made under
an exists-check, filled and listed (cache_dir_listing), or named one way where filled and
another where read or listed (cache_dir_spelled); a cache read through another
module's function that reads the file at its parameter, and files written by another
module's functions and read after their call (cache_reader); a frame drawn and read
per sample by a Dataset, each rank's own draw (sample_draws); a learning rate decided by an
evaluation in an order each process drew unseeded in another module (eval_order_lr), and a
ReduceLROnPlateau stepped with a figure over samples each process drew (plateau_figure); a
training loop ended by a time budget each rank's clock read (time_budget); exists-checks of
folders another rank makes, raising or printing (exists_made_elsewhere); a checkpoint saved
and loaded back in the same pass of a `while flag:` loop over a sharded loader whose body sets
the flag, the barrier inside the loop (while_flag_checkpoint).
Also where ddp_setup() goes: a loader built at import (import_time_loader, run first).
Each run must
end on every rank with one run directory, each file written once, and every read seeing the
finished file (a rank that reads too early raises, and the driver records it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dp2ddp import migrate_source
from dp2ddp.options import MigrateOptions
from dp2ddp.program.migrate import plan_programs
from dp2ddp.program.write import write_plan
from dp2ddp.verify.toend import KNOWN_EXIT_ABORT

pytestmark = pytest.mark.e2e

CASES = Path(__file__).resolve().parent / "e2e_agreement"
DRIVER = Path(__file__).resolve().parent / "e2e_driver.py"
NAMES = (
    "import_time_loader",  # first: its module-level sampler must find no group set up yet
    "stamped_attribute",
    "first_free_index",
    "preprocess_cache",
    "stdin_answer",
    "decided_logdir",
    "rmtree_makedirs",
    "rmtree_module_level",
    "dataset_download",
    "exists_exit",
    "rmtree_in_branch",
    "unmatched_paths",
    "sample_draws",
    "time_budget",
    "cache_dir_listing",
    "exists_made_elsewhere",
    "cache_dir_spelled",
    "while_flag_checkpoint",
)
#: Multi-module programs (folders), each run through its train.py, migrated as a program.
PROGRAMS = (
    "across_modules",
    "clock_checkpoint",
    "stamped_checkpoint",
    "cache_reader",
    "eval_order_lr",
    "plateau_figure",
)
#: The answer piped into the launch's stdin (stdin_answer reads it).
ANSWER = "exp42"
#: The next line: decided_logdir's answer to "delete it?".
DELETE = "y"
TIMEOUT_S = 240


def _launch(root: Path, slow_rank: int) -> tuple[int, str, Path]:
    """Migrate the scripts into root/scripts/ and run them under torchrun x2, with
    E2E_SLOW_RANK=slow_rank and ANSWER on stdin."""
    folder = root / "scripts"
    folder.mkdir(parents=True)
    scripts = []
    for name in NAMES:
        # several scripts in one folder: each carries its helpers (the single-file form)
        text = (CASES / f"{name}.py").read_text()
        result = migrate_source(text, MigrateOptions(inline_helpers=True), filename=f"{name}.py")
        assert result.changed, name
        assert not result.diagnostics, (name, result.diagnostics)
        (folder / f"{name}.py").write_text(result.code)
        scripts.append(str(folder / f"{name}.py"))
    for name in PROGRAMS:
        shutil.copytree(CASES / name, root / name)
        entry = root / name / "train.py"
        write_plan(plan_programs([str(entry)], MigrateOptions()))
        scripts.append(str(entry))
    out = root / "out"
    # decided_logdir finds runs_old made by an earlier run (runs_new it does not find)
    old = out / "scripts" / "decided_logdir" / "runs_old"
    old.mkdir(parents=True)
    (old / "stale.txt").write_text("an earlier run's\n")
    # rmtree_makedirs removes logs made by an earlier run
    (out / "scripts" / "rmtree_makedirs" / "logs" / "tb").mkdir(parents=True)
    (out / "scripts" / "rmtree_makedirs" / "logs" / "stale.txt").write_text("old\n")
    stale = out / "scripts" / "rmtree_in_branch" / "exp" / "run"
    stale.mkdir(parents=True)
    for index in range(200):
        (stale / f"old{index}.bin").write_text("x" * 100)
    (out / "scripts" / "rmtree_module_level" / "logs").mkdir(parents=True)
    (out / "scripts" / "rmtree_module_level" / "logs" / "stale.txt").write_text("old\n")
    frames = out / "scripts" / "sample_draws" / "frames"  # the even frames sample_draws reads
    frames.mkdir(parents=True)
    for index in range(0, 16, 2):
        (frames / f"{index:02d}.txt").write_text(str(index))
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
    env.update(OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1", E2E_SLOW_RANK=str(slow_rank))
    # the dataset library dataset_download imports (not part of any migrated program)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(CASES / "lib"), env.get("PYTHONPATH")]))
    command = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nproc_per_node=2",
        str(DRIVER),
        str(out),
        *scripts,
    ]
    try:
        proc = subprocess.run(
            command,
            cwd=root,
            env=env,
            input=f"{ANSWER}\n{DELETE}\n",
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
        )
    except subprocess.TimeoutExpired as error:
        output = error.stdout if isinstance(error.stdout, str) else ""
        raise AssertionError(f"a hang: no end after {TIMEOUT_S}s\n{output}") from error
    return proc.returncode, proc.stdout + proc.stderr, out


@pytest.fixture(scope="module", params=[0, 1], ids=["rank0_slow", "rank1_slow"])
def run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    slow_rank: int = request.param
    code, console, out = _launch(tmp_path_factory.mktemp(f"slow{slow_rank}"), slow_rank)
    folder = out / "scripts"
    failed = []  # every rank's status, so a rank killed for another's failure names it
    for name in (*NAMES, *PROGRAMS):
        ran = out / name / "train" if name in PROGRAMS else folder / name
        for rank in (0, 1):
            path = ran / f"rank{rank}.status.json"
            status = json.loads(path.read_text()) if path.exists() else None
            stderr = ran / f"rank{rank}.stderr"
            if status is None or not status["ok"]:
                text = stderr.read_text()[-3000:] if stderr.exists() else ""
                failed.append(f"{name} rank {rank} (rank {slow_rank} slow): {status}\n{text}")
    assert not failed, "\n".join(failed) + "\n" + console[-3000:]
    if code != 0:  # torch's known abort at process exit, after every script finished
        assert KNOWN_EXIT_ABORT in console, console[-4000:]
    return folder


def test_across_modules_one_directory_and_a_finished_checkpoint(run: Path) -> None:
    """naming.run_name() read the clock on every rank: rank 0's value names one directory;
    trainer.fit() saved on rank 0, and train.py's load waited for it."""
    folder = run.parent / "across_modules" / "train"
    made = list((folder / "runs").iterdir())
    assert len(made) == 1, made
    assert [p.name for p in made[0].iterdir()] == ["best.pt"]
    assert _printed_in(folder) == ("runs: 1\n", "")
    # options.py stamped opts.save_dir with the clock; write_options() made it here
    made = list((folder / "outputs").iterdir())
    assert len(made) == 1, made
    assert [p.name for p in made[0].iterdir()] == ["args.txt"]


def test_clock_checkpoint_ends_with_every_file(run: Path) -> None:
    """Checkpoint.save() (clock_ckpt/store.py) is called under each rank's own wall-clock
    test: it has no barrier, so the run ends (with one, 2 of 2 launches hung); the epoch
    checkpoints, saved by every rank alike, keep theirs."""
    folder = run.parent / "clock_checkpoint" / "train"
    assert sorted(p.name for p in folder.glob("*.pt")) == [
        "epoch0.pt",
        "epoch1.pt",
        "epoch2.pt",
        "last.pt",
    ]
    assert _printed_in(folder)[0] == "epochs saved: 3\n"


def test_stamped_checkpoint_loaded_by_every_rank(run: Path) -> None:
    """model_path took rank 0's clock on every rank and the other module's torch.load ran
    after the save (without: FileNotFoundError on rank 1, its own stamp): one checkpoint."""
    folder = run.parent / "stamped_checkpoint" / "train"
    assert len(list(folder.glob("ckpt_*.pth"))) == 1
    assert _printed_in(folder) == ("evaluated True\n", "")


def test_unmatched_paths_read_finished(run: Path) -> None:
    """Both ranks read the loop's files, listed all three shards and read the dict item's
    file only after rank 0 had written them (without the barriers: FileNotFoundError, or a
    listing of fewer shards, on the rank not slowed)."""
    folder = run / "unmatched_paths"
    files = sorted(p.name for p in folder.iterdir() if not p.name.startswith("rank"))
    assert files == ["item.pkl", "shards", "train.npy", "val.npy"]
    printed = "paths: ['item.pkl', 'shards', 'train.npy', 'val.npy'] ['0.npy', '1.npy', '2.npy']\n"
    assert _printed(run, "unmatched_paths") == (printed, "")


def test_cache_read_through_another_module(run: Path) -> None:
    """cache_reader_lib.load_cache(CACHE) and cache_reader_lib.Vocab(path) read the files
    rank 0 wrote, on every rank, after the write (without the barrier before the call:
    FileNotFoundError on the rank not slowed; the vocabulary's assert checks it was whole)."""
    folder = run.parent / "cache_reader" / "train"
    assert (folder / "reader_cache.pkl").is_file()
    assert (folder / "reader_vocab.txt").read_text() == "a b c\n"
    assert _printed_in(folder) == ("read: [1, 2, 3]\n", "")
    # written by cache_reader_lib's functions (at a parameter, at a fixed path) and read
    # after the call, here and in cache_stats_lib: the barrier after each writing call
    assert (folder / "reader_table.pkl").is_file() and (folder / "reader_stats.json").is_file()


def test_cache_dir_listed_whole(run: Path) -> None:
    """Both ranks took rank 0's exists-check into the branch and listed the folder after
    the barrier that follows the writing loop: all six files (before: "no cached files"
    on both ranks, rank 1 had made the folder first, or a partial listing)."""
    assert _printed(run, "cache_dir_listing") == ("listed 6 globbed 6\n", "")


def test_cache_dir_spelled_apart_read_whole(run: Path) -> None:
    """Each folder, named another way where it is read or listed, was read whole after the
    barrier that follows its writing loop (before: FileNotFoundError on the rank not
    slowed, or a part of the table listed)."""
    assert _printed(run, "cache_dir_spelled") == ("rows 6 listed 3\n", "")


def test_learning_rate_decided_by_rank0s_figure(run: Path) -> None:
    """valreader.ValReader draws its order from numpy's unseeded generator in each process;
    the figure it gives decides the learning rate: rank 0's figure on every rank, so both
    end with one learning rate and the same weights (before: apart in 3 of 3 launches)."""
    folder = run.parent / "eval_order_lr" / "train"
    migrated = (run.parent.parent / "eval_order_lr" / "train.py").read_text()
    assert "ddp_rank0_value(evaluate, net, vx, vy)" in migrated
    digests = [json.loads((folder / f"rank{r}.status.json").read_text())["digest"] for r in (0, 1)]
    assert digests[0] and digests[0] == digests[1], digests


def test_plateau_stepped_with_rank0s_figure(run: Path) -> None:
    """scheduler.step(evaluate(...)) over samples each process draws with `random`: rank 0's
    figure on every rank, one learning rate and the same weights on both."""
    folder = run.parent / "plateau_figure" / "train"
    migrated = (run.parent.parent / "plateau_figure" / "train.py").read_text()
    assert "scheduler.step(ddp_rank0_value(evaluate, net, vx, vy))" in migrated
    digests = [json.loads((folder / f"rank{r}.status.json").read_text())["digest"] for r in (0, 1)]
    assert digests[0] and digests[0] == digests[1], digests


def test_setup_at_import_for_a_loader_built_at_import(run: Path) -> None:
    """import_time_loader's module-level DistributedSampler found the process group: the
    script ran first in the launch and ended on both ranks (checked by `run`), ddp_setup()
    at module level, not in main()."""
    assert NAMES[0] == "import_time_loader"
    migrated = (run.parent.parent / "scripts" / "import_time_loader.py").read_text()
    assert "\nddp_setup()\n" in migrated and "    ddp_setup()" not in migrated
    printed = _printed(run, "import_time_loader")[0]
    assert printed.startswith("weight sum "), printed


def _printed(folder: Path, name: str) -> tuple[str, str]:
    return _printed_in(folder / name)


def _printed_in(folder: Path) -> tuple[str, str]:
    return (folder / "rank0.stdout").read_text(), (folder / "rank1.stdout").read_text()


def test_time_budget_ends_every_rank_at_one_step(run: Path) -> None:
    """The clock reads of `if time.time() - start > 0.6: break` are rank 0's: every rank
    left the loop at the same step and ended (before: the other rank failed in its next
    all-reduce, rc 1, with either rank slower)."""
    assert _printed(run, "time_budget") == ("stopped: True\n", "")


def test_one_stamped_directory_each(run: Path) -> None:
    """args.save, cfg["log_dir"] and stamp()'s return take rank 0's clock: one directory
    each, and rank 1's torch.load found rank 0's checkpoint."""
    folder = run / "stamped_attribute"
    for parent in ("runs", "logs", "best"):
        made = list((folder / parent).iterdir())
        assert len(made) == 1, made
    assert [p.name for p in (folder / "logs").iterdir()][0].startswith("run_")
    assert [p.name for p in next((folder / "runs").iterdir()).iterdir()] == ["model.pt"]
    assert (next((folder / "logs").iterdir()) / "done.txt").read_text() == "done\n"
    assert _printed(run, "stamped_attribute") == ("runs: 1 1 1\n", "")


def test_one_first_free_index_directory(run: Path) -> None:
    """The rank that looks second takes rank 0's answers: one exp_0, not exp_0 and exp_1."""
    folder = run / "first_free_index"
    assert sorted(p.name for p in folder.iterdir() if p.is_dir()) == ["exp_0"]
    assert [p.name for p in (folder / "exp_0").iterdir()] == ["model.pt"]
    assert _printed(run, "first_free_index") == ("runs: ['exp_0']\n", "")


def test_removed_in_branch_then_made(run: Path) -> None:
    """Rank 0 removed exp/run (200 stale files) while no rank used it, then both made it
    and wrote their log into the new folder."""
    names = sorted(p.name for p in (run / "rmtree_in_branch" / "exp" / "run").iterdir())
    assert names == ["rank0.log", "rank1.log"], names[:5]


def test_exists_check_decided_by_rank0(run: Path) -> None:
    """Rank 0's reading of `out.exists()` decided for both ranks: neither found the other's
    new folder and exited (before: rc 1 with either rank late)."""
    assert _printed(run, "exists_exit") == ("done\n", "")
    assert [p.name for p in (run / "exists_exit" / "exp_out").iterdir()] == ["model.pt"]


def test_exists_checks_of_folders_made_elsewhere(run: Path) -> None:
    """Rank 0's readings decided: no rank raised for the folder another rank's helper had
    made, and rank 0 printed both "creating folder" lines whichever rank came first
    (before: rc 1 with either rank late; the lines missing with rank 0 late)."""
    printed = "creating folder logs\ncreating folder logs/ckpt\ndone\n"
    assert _printed(run, "exists_made_elsewhere") == (printed, "")
    assert [p.name for p in (run / "exists_made_elsewhere" / "saved" / "run").iterdir()] == [
        "log.txt"
    ]


def test_dataset_downloaded_once(run: Path) -> None:
    """Rank 0 fetched the dataset's file, and rank 1 found it finished (without: both
    fetched into one file, or rank 1 read it half-written)."""
    assert _printed(run, "dataset_download") == ("fetched: ['fetched_by_rank0']\n", "")


def test_cache_written_once_and_read_finished(run: Path) -> None:
    """Both ranks read the cache and the features only after rank 0 had written them."""
    folder = run / "preprocess_cache"
    files = sorted(p.name for p in folder.iterdir() if not p.name.startswith("rank"))
    want = ["cache.pkl", "cached.pkl", "features.npy", "pathcached.pkl", "table.csv", "vocab.json"]
    assert files == want
    assert _printed(run, "preprocess_cache") == (f"cache: {want}\n", "")


def test_decided_logdir_asked_once_and_removed_once(run: Path) -> None:
    """The exists-check is rank 0's value: rank 0 alone read "y" and removed runs_old; both
    ranks took the branch and waited for the removal (neither saw the stale file); runs_new,
    absent at the start, asked nothing on either rank."""
    folder = run / "decided_logdir"
    assert sorted(p.name for p in (folder / "runs_old").iterdir()) == ["rank0.txt", "rank1.txt"]
    for rank in (0, 1):
        assert (folder / "runs_old" / f"rank{rank}.txt").read_text() == "stale=False"
    assert (folder / "runs_new").is_dir() and not list((folder / "runs_new").iterdir())
    assert _printed(run, "decided_logdir") == (
        # the wrap's class name prints the original's "DataParallel" (stop 53 x2)
        "delete it? y/nDir removed\nstale: False model: DataParallel\n",
        "",
    )


def test_removed_log_directory_waited_for(run: Path) -> None:
    """Rank 0 removed the earlier run's logs before any rank made or wrote into them: both
    ranks' files are there, and neither saw the stale file; the exists-check before
    `model` raised on neither rank."""
    folder = run / "rmtree_makedirs" / "logs"
    assert sorted(p.name for p in folder.iterdir()) == ["model", "tb"]
    assert sorted(p.name for p in (folder / "tb").iterdir()) == ["rank0.txt", "rank1.txt"]
    for rank in (0, 1):
        assert (folder / "tb" / f"rank{rank}.txt").read_text() == "stale=False"
    # the wrap's class name prints the original's "DataParallel" (stop 53 x2)
    assert _printed(run, "rmtree_makedirs") == ("stale: False model: DataParallel\n", "")


def test_removed_at_module_level_waited_for(run: Path) -> None:
    """The same removal in a script with no main(), after its ddp_setup()."""
    folder = run / "rmtree_module_level" / "logs"
    assert sorted(p.name for p in folder.iterdir()) == ["rank0.txt", "rank1.txt"]
    for rank in (0, 1):
        assert (folder / f"rank{rank}.txt").read_text() == "stale=False"
    assert _printed(run, "rmtree_module_level") == ("stale: False\n", "")


def test_piped_answer_used_on_every_rank(run: Path) -> None:
    """Rank 0 read the piped line (the prompt printed once), rank 1 got its answer."""
    folder = run / "stdin_answer"
    assert [p.name for p in (folder / "runs").iterdir()] == [ANSWER]
    for rank in (0, 1):
        assert (folder / f"answer{rank}.txt").read_text() == ANSWER
    assert _printed(run, "stdin_answer") == (f"experiment name: runs: ['{ANSWER}']\n", "")


def test_sample_draws_are_each_ranks_own(run: Path) -> None:
    """near()'s per-sample draw names a file only read: each rank draws for its own samples
    (made rank 0's value, rank 1's draws were rank 0's sequence, 8 of 8 offsets equal)."""
    zero, one = ((run / "sample_draws" / f"draws{rank}.txt").read_text().split() for rank in (0, 1))
    assert len(zero) >= 8 and len(one) >= 8, (zero, one)
    shorter = min(len(zero), len(one))
    assert zero[:shorter] != one[:shorter], (zero, one)


def test_loader_built_at_import_of_another_module(tmp_path: Path) -> None:
    """Class S1 (stop 34, zhilin007/FFA-Net@6651bcf): the program fixture
    loader_built_at_import_of_module, whose data.py builds its training loader (and so the
    migration's DistributedSampler) at import. Its entry calls ddp_setup() before `from data
    import *`: both ranks train and end (before: setup after the imports, "Default process
    group has not been initialized" on both at the import). Its own launch: in the shared one
    an earlier script has set the group up already."""
    _runs_program_fixture(tmp_path, "loader_built_at_import_of_module", "steps 4 test error")


def test_loader_built_by_a_module_level_call(tmp_path: Path) -> None:
    """Class v3-A (stop 44, ehoogeboom/e3_diffusion_for_molecules@fce07d7): the program
    fixture loader_built_by_call_at_import, whose entry calls another module's loader
    function at module level, before main(). Its entry calls ddp_setup() after its imports:
    both ranks train and end (before: setup first thing in main(), "Default process group
    has not been initialized" on both at the module-level call)."""
    _runs_program_fixture(tmp_path, "loader_built_by_call_at_import", "weights ")


def _runs_program_fixture(tmp_path: Path, name: str, printed_start: str) -> None:
    """The program fixture's expected tree under torchrun ×2, in its own launch (in the
    shared one an earlier script has set the group up already): no missing process group,
    both ranks end, rank 0 alone prints the line starting `printed_start`."""
    work = tmp_path / "program"
    fixture = Path(__file__).resolve().parent / "program_fixtures"
    shutil.copytree(fixture / name / "expected", work)
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
    env.update(OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1")
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"]
    proc = subprocess.run(
        [*command, "train.py"], cwd=work, env=env, capture_output=True, text=True, timeout=TIMEOUT_S
    )
    console = proc.stdout + proc.stderr
    assert "Default process group has not been initialized" not in console, console[-3000:]
    if proc.returncode != 0:  # torch's known abort at process exit, after the script ended
        assert KNOWN_EXIT_ABORT in console, console[-3000:]
    printed = [line for line in proc.stdout.splitlines() if line.startswith(printed_start)]
    assert len(printed) == 1, console[-3000:]  # rank 0 alone prints, after both trained
