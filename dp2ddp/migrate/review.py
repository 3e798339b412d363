"""Markdown reports for pull requests: what `migrate` changed and why, and how to launch.

`render_markdown` is `migrate --report`'s section; other commands (`verify --report`) add
their own `## ...` section to the same file with `append_section`.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from dp2ddp.codes import CODES
from dp2ddp.errors import one_line
from dp2ddp.migrate.summary import fold_unreached, is_new_file
from dp2ddp.options import MigrateOptions
from dp2ddp.result import FileOutcome

#: The heading of render_markdown's section (append_section replaces it on a rerun).
MIGRATE_HEADING = "## dp2ddp migrate"


def render_markdown(
    outcomes: Sequence[FileOutcome],
    options: MigrateOptions,
    launch_commands: Sequence[str],
) -> str:
    """A `## dp2ddp migrate` section: per file its changes and warnings, the batch-size
    policy, and the launch commands. Ends with a newline."""
    outcomes = fold_unreached(outcomes)  # DP034: one warning for the modules left alone
    lines = [MIGRATE_HEADING, "", _summary(outcomes), ""]
    lines += ["### Batch size", "", *_batch_policy(options), ""]
    lines += ["### Launch", ""]
    if launch_commands:
        lines += ["```bash", *launch_commands, "```", ""]
    else:
        lines += ["No file was migrated, so there is nothing to launch.", ""]
    lines += ["### Files", ""]
    head = "\n".join(lines)
    sections = [_file_section(o) for o in outcomes if not _quiet(o)]
    quiet = sum(1 for o in outcomes if _quiet(o))
    tail = (
        [f"{quiet} file{'s' if quiet != 1 else ''} unchanged (no DataParallel), not listed.", ""]
        if quiet
        else []
    )
    if not outcomes:
        tail = ["No files were given.", ""]
    body = _fit(sections, len(head) + len("\n".join(tail)) + 2)
    return "\n".join([head, *body, *tail]).rstrip("\n") + "\n"


#: GitHub refuses a pull-request body over 65,536 characters; leave room for verify's
#: section and the author's own text.
BODY_LIMIT = 60_000
#: A file's list of changes longer than this is folded (<details>).
FOLD_CHANGES = 8


def _quiet(outcome: FileOutcome) -> bool:
    """An unchanged file with nothing to say: counted in one line, not listed."""
    result = outcome.result
    return outcome.status == "unchanged" and (result is None or not result.diagnostics)


def _fit(sections: list[list[str]], used: int, limit: int = BODY_LIMIT) -> list[str]:
    """The file sections that fit in `limit` characters; then one line for the rest."""
    out: list[str] = []
    for index, section in enumerate(sections):
        text = "\n".join(section)
        if used + len(text) + 1 > limit - 400:
            left = len(sections) - index
            out += [
                f"{left} more file{'s' if left != 1 else ''} not shown: this report stays "
                f"under GitHub's 65,536-character pull-request body. `dp2ddp migrate --diff` "
                "shows every change, and the warnings are printed by `dp2ddp migrate`.",
                "",
            ]
            break
        out += section
        used += len(text) + 1
    return out


def append_section(path: str | os.PathLike[str], markdown: str) -> None:
    """Add a `## heading` section to the report at `path` (created if missing).

    If the file already has a section with the same first line (e.g. `## dp2ddp verify`
    from an earlier run), that section is replaced in place, so reruns do not pile up.
    Sections end at the next `## ` heading outside a code fence.
    """
    path = Path(path)
    markdown = markdown.rstrip("\n") + "\n"
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    heading = markdown.split("\n", 1)[0].rstrip()
    lines = old.splitlines(keepends=True)
    start = _find_heading(lines, heading) if heading.startswith("## ") else None
    if start is None:
        separator = "" if not old else ("\n" if old.endswith("\n") else "\n\n")
        text = old + separator + markdown
    else:
        end = _section_end(lines, start)
        after = "".join(lines[end:])
        text = "".join(lines[:start]) + markdown + ("\n" + after if after else "")
    path.write_text(text, encoding="utf-8")


# -- pieces ---------------------------------------------------------------------------------
def _summary(outcomes: Sequence[FileOutcome]) -> str:
    counts = {status: 0 for status in ("migrated", "unchanged", "failed")}
    warnings = 0
    for outcome in outcomes:
        counts[outcome.status] += 1
        if outcome.result is not None:
            warnings += len(outcome.result.diagnostics)
    parts = [f"{n} {status}" for status, n in counts.items() if n]
    return (
        "Moved from `torch.nn.DataParallel` to `DistributedDataParallel` (launched by "
        f"`torchrun`): {', '.join(parts) or 'no files'}; "
        f"{warnings} warning{'' if warnings == 1 else 's'} to review."
    )


def _batch_policy(options: MigrateOptions) -> list[str]:
    if options.per_process_batch:
        lines = [
            "`--per-process-batch`: every DataLoader's `batch_size` is now the batch of "
            "*each* process, so one optimizer step sees `batch_size * WORLD_SIZE` samples. "
            "Scale the learning rate (or the batch size) if the old global batch mattered.",
        ]
    else:
        lines = [
            "Default: `batch_size` keeps DataParallel's meaning, the *global* batch of one "
            "optimizer step. Each process loads `batch_size // WORLD_SIZE` samples "
            "(`ddp_per_rank_batch`), and batch sizes scaled by the GPU count (`X * n_gpu`) "
            "became `X`. Pass `--per-process-batch` to keep `batch_size` per process instead.",
        ]
    if options.keep_summed_loss:
        lines += [
            "",
            "`--keep-summed-loss`: losses summed over the batch were left as written (DP004): "
            "DDP averages gradients over the processes, so their updates are WORLD_SIZE times "
            "smaller than under DataParallel.",
        ]
    else:
        lines += [
            "",
            "Losses summed over the batch are multiplied by `WORLD_SIZE` where they are "
            "backpropagated (`(loss * WORLD_SIZE).backward()`), so the updates stay "
            "DataParallel's; the loss values printed or logged are unchanged. Pass "
            "`--keep-summed-loss` to leave them as written.",
        ]
    if options.sync_batchnorm:
        lines += [
            "",
            "`--sync-batchnorm`: BatchNorm layers were converted to SyncBatchNorm "
            "(takes effect on CUDA only).",
        ]
    return lines


def _file_section(outcome: FileOutcome) -> list[str]:
    result = outcome.result
    lines = [f"#### `{outcome.path}`: {_status(outcome)}", ""]
    if outcome.status == "failed":
        error = one_line(outcome.error or "unknown error")
        lines += [f"- {error}" if ": error: " in error else f"- error: {error}", ""]
        return lines
    if result is not None and result.changes and outcome.status == "migrated":
        counts = Counter(sorted(result.changes, key=lambda c: c.line))  # same edit, one line
        items = [
            f"- line {c.line} ({c.transform}): {one_line(c.description)}"
            + (f" ({n}×)" if n > 1 else "")
            for c, n in counts.items()
        ]
        if len(items) > FOLD_CHANGES:  # folded: the warnings below are what to review
            lines += ["<details>", f"<summary>{len(items)} changes</summary>", ""]
            lines += [*items, "", "</details>", ""]
        else:
            lines += ["Changes:", "", *items, ""]
    if result is not None and result.diagnostics:
        lines += ["Warnings:", ""]
        for d in result.diagnostics:
            explanation = CODES[d.code][1] if d.code in CODES else ""
            lines.append(
                f"- line {d.line}:{d.col} **{d.code}** {one_line(d.message)}"
                + (f". {explanation}" if explanation else "")
            )
        lines.append("")
    return lines


def _status(outcome: FileOutcome) -> str:
    if outcome.status == "migrated":
        return "created" if is_new_file(outcome) else "migrated"
    if outcome.status == "failed":
        return "failed, left untouched"
    result = outcome.result
    if result is not None and result.diagnostics:
        return "unchanged (see warnings)"
    return "unchanged (no DataParallel)"


def _find_heading(lines: list[str], heading: str) -> int | None:
    fenced = False
    for index, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and line.rstrip() == heading:
            return index
    return None


def _section_end(lines: list[str], start: int) -> int:
    fenced = False
    for index in range(start + 1, len(lines)):
        line = lines[index]
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and line.startswith("## "):
            return index
    return len(lines)
