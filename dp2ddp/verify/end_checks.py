"""What `verify --to-end` checks after the compared steps (the rows `to end: ...`: exits,
output, figures, files, directories, stdin, final parameters), and what a verdict covers
(`compared_scope`): a verdict of EQUIVALENT from `--steps 3` says that it compared three
steps only, and with `--to-end` what the final parameters show of the later ones
(idstcv/KDA@0f509e6, whose difference starts at step 6: "EQUIVALENT" from 3 steps said
nothing of that; docs/real-world.md, stop 52, s4). Moved out of session.py whole."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from dp2ddp.verify import launch, protocol, toend
from dp2ddp.verify.config import VerifyConfig
from dp2ddp.verify.failures import deliberate_exit, exit_aborts
from dp2ddp.verify.ratio_cause import warned
from dp2ddp.verify.records import RankRecord, load_run
from dp2ddp.verify.report import Cause
from dp2ddp.verify.toend import to_end_causes

if TYPE_CHECKING:
    from dp2ddp.verify.session import Scripts


def to_end_rows(
    config: VerifyConfig,
    scripts: Scripts,
    workdir: Path,
    results: dict[str, launch.RunResult],
    original: RankRecord,
    ranks: list[RankRecord],
) -> tuple[dict[str, str], list[Cause], list[str], tuple[float, str] | None]:
    """--to-end: both runs ended by themselves; check exits, output, files; measure drift
    (the final parameters' largest relative distance, returned for `compared_scope`)."""
    rows: dict[str, str] = {}
    notes: list[str] = []
    later = [r.data.get("later_steps", 0) for r in (original, ranks[0])]
    rows["steps"] = (
        f"{config.steps} compared, then {later[0]} more in the original, "
        f"{later[1]} in the migration"
    )
    aborted = {
        name: exit_aborts(
            result, load_run(workdir / name, len(ranks) if name == launch.MIGRATED else 1)
        )
        for name, result in results.items()
    }
    rows["exits"] = (
        f"ok: the original and all {len(ranks)} ranks ended their script and exited 0 "
        f"within {config.timeout:g} s"
    )
    chosen = deliberate_exit(original, ranks)
    if chosen is not None:
        rows["exits"] = (
            f"ok: the original and the migrated run exited with the status their script chose, "
            f"{chosen}, within {config.timeout:g} s (matching: not a crash)"
        )
    for name, which in aborted.items():
        if which:
            who = (
                ", ".join(f"rank {r}" for r in which) if name == launch.MIGRATED else "the original"
            )
            notes.append(
                f"{who} ({name} run) ended its script, then aborted at interpreter exit with "
                f"torch's known '{toend.KNOWN_EXIT_ABORT}' (SIGABRT in a C++ destructor at "
                "exit, not the script): counted as a clean exit"
            )
    output = toend.check_output(
        original.stdout,
        [r.stdout for r in ranks],
        replacements=tuple((c.as_posix(), r.as_posix()) for c, r in scripts.copies),
    )
    rows["output"] = output.describe()
    figures = toend.FigureCheck()
    if ranks:
        figures = toend.check_figures(
            original.stdout + "\n" + toend.logged_text(original.stderr),
            ranks[0].stdout + "\n" + toend.logged_text(ranks[0].stderr),
            replacements=tuple((c.as_posix(), r.as_posix()) for c, r in scripts.copies),
        )
        if figures.compared:
            rows["figures"] = figures.describe()
    shared = toend.shared_writes([list(r.data.get("writes", [])) for r in ranks])
    written = [scripts.display(w) for r in ranks[:1] for w in r.data.get("writes", [])]
    if shared:
        rows["files"] = "NOT once: " + "; ".join(
            f"{scripts.display(path)} by ranks {', '.join(map(str, who))}"
            for path, who in shared.items()
        )
    else:
        shown = ", ".join(written[:5]) + (
            f" and {len(written) - 5} more" if len(written) > 5 else ""
        )
        rows["files"] = f"ok: each written by one rank ({shown or 'rank 0 wrote none'})"
    only_original, only_migrated = toend.unmatched_files(
        [scripts.in_migrated(w) for w in original.data.get("writes", [])],
        [list(r.data.get("writes", [])) for r in ranks],
    )
    if only_original or only_migrated:
        rows["file names"] = "differ (information): " + "; ".join(
            f"{who} wrote {_some([scripts.display(p) for p in paths])}, {other} did not"
            for who, other, paths in (
                ("the original", "the migration", only_original),
                ("the migration", "the original", only_migrated),
            )
            if paths
        )
    own = toend.own_directories(
        [list(r.data.get("directories", [])) for r in ranks],
        [w for r in ranks[:1] for w in r.data.get("writes", [])],
        [scripts.in_migrated(d) for d in original.data.get("directories", [])],
    )
    if own:
        rows["directories"] = "NOT one: " + "; ".join(
            f"{scripts.display(path)} made by rank {', '.join(map(str, who))} only"
            for path, who in own.items()
        )
    readers = toend.stdin_readers([int(r.data.get("stdin_reads", 0)) for r in ranks])
    if readers:
        rows["stdin"] = "NOT once: read by rank " + ", ".join(map(str, readers)) + " as well"
    distance = toend.final_distance(original.final(), ranks[0].final(), original.names())
    apart = False
    if distance is not None:
        rel, name = distance
        apart = not _final_sync(ranks)
        rows["final params"] = (
            f"relative distance up to {rel:.3g} ({name}), information only; ranks "
            + ("DIFFER" if apart else "identical")
            + " at the end"
        )
    causes = to_end_causes(output, shared, scripts.display, own, readers, scripts.warnings)
    if apart:
        causes.append(_apart_at_end(scripts.warnings))
    elif figures.differing and distance is not None and distance[0] <= config.rtol:
        # from the same weights: rank 0's share, a difference (not a cause: a last batch's
        # loss printed by rank 0 is one too, and DDP programs print it as a matter of course)
        rows["figures"] = "DIFFER: " + figures.describe(same_weights=True)
        notes.append(_figures_of_a_share(figures, scripts.warnings))
    return rows, causes, notes, distance


def _apart_at_end(warnings: tuple[str, ...]) -> Cause:
    """The ranks ended with different parameters: DDP keeps them equal at every step, so
    something each rank decided from its own share changed its training after the steps
    compared (a learning rate stepped on a rank's own figure: round 21's class, verify
    said "EQUIVALENT over the first 3 optimizer steps only" with the ranks apart)."""
    said = [
        f"{code} at {place}"
        for code in ("DP090", "DP068", "DP007", "DP057")
        for place in warned(warnings, code)
    ]
    return Cause(
        "ranks_apart_at_end",
        "the ranks' parameters differ at the end",
        "every rank ran its script to the end, and their final parameters are not "
        "identical: DDP keeps them equal at every step it reduces, so a rank trained "
        "differently after the steps compared"
        + (f"; dp2ddp migrate warned {'; '.join(said[:3])}" if said else ""),
        "Make what each rank decides from its own share (a learning rate, a module trained "
        "outside the wrap) alike on every rank, as those warnings say; rerun with more "
        "--steps to find the step.",
    )


def _figures_of_a_share(figures: toend.FigureCheck, warnings: tuple[str, ...]) -> str:
    """The note where the runs end with the same parameters (within rtol, the ranks
    identical), yet rank 0 prints other figures: computed from the same weights, they differ
    by the data they cover, rank 0's share of a sharded pass (round 26, remiMZ/MRN-ICASSP22
    @0952cf3: the test accuracy of a sharded DataLoader subclass was rank 0's half, and the
    figures were "information only")."""
    said = [
        f"{code} at {place}"
        for code in ("DP015", "DP030", "DP052")
        for place in warned(warnings, code)
    ]
    return (
        "rank 0 prints other figures from the same final weights: of its share of the data "
        "alone, unless drawn at random in evaluation; an evaluation figure needs its terms "
        "summed over the ranks or its loader whole on every rank"
        + (f" (dp2ddp migrate warned {'; '.join(said[:3])})" if said else " (no warning said so)")
    )


def _some(paths: list[str], shown: int = 5) -> str:
    more = len(paths) - shown
    return ", ".join(paths[:shown]) + (f" and {more} more" if more > 0 else "")


def _final_sync(ranks: list[RankRecord]) -> bool:
    reference = ranks[0].data.get("final_hashes", {})
    return all(r.data.get("final_hashes", {}) == reference for r in ranks[1:])


def compared_scope(
    config: VerifyConfig,
    steps: int,
    original: RankRecord,
    distance: tuple[float, str] | None,
) -> str:
    """What an EQUIVALENT verdict covers, "" where it covers the whole run (the original
    ended before the requested steps, or, run to the end, made no step after them). `steps`:
    the optimizer steps compared; `distance`: the final parameters' (--to-end), None where
    not measured."""
    if original.status == protocol.FINISHED and steps < config.steps and not config.to_end:
        return ""
    head = f"the first {steps} optimizer steps, compared step by step"
    if not config.to_end:
        return (
            f"{head}; the runs were stopped there, and any later step was not compared "
            "(--to-end runs both to the end and compares their final parameters)"
        )
    later = int(original.data.get("later_steps", 0))
    if later == 0:
        return ""
    head += f"; the original's {later} later steps were not compared step by step"
    if distance is None:
        return f"{head}, nor the final parameters (none recorded)"
    rel, name = distance
    if rel <= config.rtol:
        return (
            f"{head}; the final parameters agree within rtol {config.rtol:g} (relative "
            f"distance up to {rel:.3g})"
        )
    return (
        f"{head}; the final parameters differ by a relative distance up to {rel:.3g} ({name}), "
        f"beyond rtol {config.rtol:g}: a difference may begin after step {steps} (rerun with "
        "more --steps to find where)"
    )
