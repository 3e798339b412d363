"""Render a VerifyReport: a terminal table, Markdown for a PR report, JSON for CI."""

from __future__ import annotations

import json
import math
from pathlib import Path

from dp2ddp.verify.report import EQUIVALENT, NOT_EQUIVALENT, ParamRow, VerifyReport

_LABEL = 18


def _num(value: float) -> str:
    return f"{value:.2e}" if math.isfinite(value) else "inf"


def _rows(report: VerifyReport) -> list[tuple[str, str]]:
    rows = [
        ("original", f"{report.original} (1 process)"),
        (
            "migrated",
            f"{report.migrated} (torchrun, {report.world_size} processes, {report.backend})",
        ),
    ]
    if report.failures:
        return rows
    rows += [
        ("steps compared", _steps(report)),
        ("tolerance", f"rtol {report.rtol:g}, atol {report.atol:g}"),
        ("initial weights", report.initial_weights),
        ("ranks in sync", report.ranks_in_sync),
        ("sharding", f"{report.sharding_status}: {report.sharding}"),
        (
            "first divergence",
            f"step {report.first_diverging_step}" if report.first_diverging_step else "none",
        ),
    ]
    rows += [(f"to end: {label}", value) for label, value in report.to_end.items()]
    if report.scope:
        rows.append(("verdict covers", report.scope))
    return rows


def _scoped(report: VerifyReport) -> str:
    """ " over the first N optimizer steps only" after a verdict that covers no more."""
    return f" over the first {report.steps_compared} optimizer steps only" if report.scope else ""


def _steps(report: VerifyReport) -> str:
    counted = f"{report.steps_compared} of {report.steps_requested}"
    if report.optimizers == 1:
        return counted
    return f"{counted} (optimizer steps counted globally, over {report.optimizers} optimizers)"


def _param_table(params: tuple[ParamRow, ...]) -> list[list[str]]:
    return [
        [p.name, str(tuple(p.shape)), str(p.step), _num(p.rel_error), _num(p.max_abs_diff),
         "ok" if p.passed else "DIFFERS"]
        for p in params
    ]  # fmt: skip


_PARAM_HEADER = ["parameter", "shape", "step", "rel. error", "max abs diff", ""]


def to_text(report: VerifyReport) -> str:
    lines = [f"dp2ddp verify: {report.verdict.upper()}{_scoped(report)}"]
    lines += [f"  {label:<{_LABEL}} {value}" for label, value in _rows(report)]
    for failure in report.failures:
        where = f"{failure.run} run" + (
            f", rank {failure.rank}" if failure.rank is not None else ""
        )
        lines.append(f"  {'failure':<{_LABEL}} {where} {failure.reason}: {failure.message}")
        lines += [f"    | {line}" for line in failure.excerpt.splitlines()]
    if report.worst_parameters:
        table = [_PARAM_HEADER, *_param_table(report.worst_parameters)]
        widths = [max(len(row[i]) for row in table) for i in range(len(_PARAM_HEADER))]
        lines.append("  worst parameters")
        for row in table:
            lines.append(
                "    " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
            )
    if report.causes:
        lines.append("  likely cause" + ("s" if len(report.causes) > 1 else ""))
        for number, cause in enumerate(report.causes, 1):
            lines.append(f"    {number}. {cause.title}")
            lines.append(f"       {cause.detail}")
            if cause.fix:
                lines.append(f"       fix: {cause.fix}")
    if report.notes:
        lines.append("  notes")
        lines += [f"    - {note}" for note in report.notes]
    if report.seconds:
        timing = ", ".join(f"{name} {sec:.1f} s" for name, sec in report.seconds.items())
        lines.append(f"  {'time':<{_LABEL}} {timing}")
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(report: VerifyReport) -> str:
    mark = {EQUIVALENT: "✅", NOT_EQUIVALENT: "❌"}.get(report.verdict, "⚠️")
    lines = [
        "## dp2ddp verify",
        "",
        f"**{mark} {report.verdict}{_scoped(report)}** (exit {report.exit_code})",
        "",
        "| | |",
        "|---|---|",
    ]
    lines += [f"| {label} | {_cell(value)} |" for label, value in _rows(report)]
    for failure in report.failures:
        where = f"{failure.run} run" + (
            f", rank {failure.rank}" if failure.rank is not None else ""
        )
        lines.append(f"| failure | {_cell(f'{where} {failure.reason}: {failure.message}')} |")
    if any(f.excerpt for f in report.failures):
        lines += ["", "```text", *[f.excerpt for f in report.failures if f.excerpt], "```"]
    if report.worst_parameters:
        lines += ["", "| " + " | ".join(_PARAM_HEADER) + " |", "|---" * len(_PARAM_HEADER) + "|"]
        lines += [
            "| " + " | ".join(_cell(c) for c in row) + " |"
            for row in _param_table(report.worst_parameters)
        ]
    if report.causes:
        lines += ["", "**Likely cause" + ("s" if len(report.causes) > 1 else "") + "**", ""]
        for cause in report.causes:
            fix = f" *Fix:* {cause.fix}" if cause.fix else ""
            lines.append(f"- **{cause.title}**: {cause.detail}.{fix}")
    if report.notes:
        lines += ["", *[f"- {note}" for note in report.notes]]
    return "\n".join(lines) + "\n"


def to_json(report: VerifyReport) -> str:
    return json.dumps(report.to_json(), indent=2) + "\n"


def append_markdown(report: VerifyReport, path: Path) -> None:
    """Add the `## dp2ddp verify` section to a PR report (created if missing; a section from
    an earlier verify run is replaced, the migrate section and the user's text are kept)."""
    from dp2ddp.migrate.review import append_section

    append_section(path, to_markdown(report))
