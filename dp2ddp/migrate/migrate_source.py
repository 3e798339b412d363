"""`migrate_source`: the pure string-in, string-out core (no file I/O, no printing)."""

from __future__ import annotations

import dataclasses

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.metadata import MetadataWrapper, PositionProvider

from dp2ddp.facts import ProgramFacts
from dp2ddp.migrate.deep import call_deep, nesting_error
from dp2ddp.migrate.line_length import DEFAULT as DEFAULT_LINE_LENGTH
from dp2ddp.migrate.linemap import LineMap
from dp2ddp.migrate.markers import MARKED, mark
from dp2ddp.migrate.parse import parse
from dp2ddp.migrate.pipeline import CHECKS_ONLY, PIPELINE
from dp2ddp.migrate.reindent import reindented, said
from dp2ddp.migrate.suppress import filter_diagnostics
from dp2ddp.migrate.tidy import tidy
from dp2ddp.options import MigrateOptions
from dp2ddp.result import Change, Diagnostic, MigrationResult
from dp2ddp.transforms._support.base import MigrationState, RawReport
from dp2ddp.transforms._support.forwarding_classes import with_own_forwarding
from dp2ddp.transforms._support.libcst_private import printed
from dp2ddp.transforms._support.names import SCALED_LOSS
from dp2ddp.transforms._support.nodes import texts_remembered
from dp2ddp.transforms._support.runtime import helper_closure, helpers_defining, render_module
from dp2ddp.transforms.batches.loops import SHARD
from dp2ddp.transforms.hazards.replay_memories import shared_fill


def migrate_source(
    source: str,
    options: MigrateOptions | None = None,
    *,
    filename: str | None = None,
    program: ProgramFacts | None = None,
) -> MigrationResult:
    """Migrate one file's text from DataParallel to DDP.

    Raises InputError when `source` is not valid Python. Returns the source unchanged
    (byte for byte) when it has nothing dp2ddp migrates. A migrated file imports its setup
    and helpers from the generated module `_dp2ddp` beside it, whose text the result
    carries (`helpers_module`), unless `options.inline_helpers` puts them in the file.
    `program`: what the file's program tells it (dp2ddp/facts.py: its role, the
    program-wide gate, hints, helpers that draw, loaders); None: a single file.
    """
    fixed = reindented(source)  # indentation libcst's parser refuses (migrate/reindent.py)
    text = source if fixed is None else fixed.text
    try:
        result = call_deep(
            lambda: migrate_parsed(parse(text), text, options, filename=filename, program=program)
        )
    except RecursionError:  # deeper than call_deep's room (migrate/deep.py)
        raise nesting_error(source) from None
    return result if fixed is None else said(result, source, fixed.lines)


def migrate_parsed(
    module: cst.Module,
    source: str,
    options: MigrateOptions | None = None,
    *,
    filename: str | None = None,
    program: ProgramFacts | None = None,
) -> MigrationResult:
    """`migrate_source` on a tree already parsed from `source` (the project model parses
    a module once, to find DataParallel, and migrates that tree)."""
    with texts_remembered():  # the passes print the same nodes again and again
        return _migrated(module, source, options, filename=filename, program=program)


def _migrated(
    module: cst.Module,
    source: str,
    options: MigrateOptions | None,
    *,
    filename: str | None,
    program: ProgramFacts | None,
) -> MigrationResult:
    options = options or MigrateOptions()
    facts = with_own_forwarding(program or ProgramFacts(), source)
    state = MigrationState(options=options, facts=facts)
    code = source
    line_map = LineMap()
    warnings: list[Diagnostic] = []
    changes: list[Change] = []
    for transform_class in PIPELINE:
        if not transform_class.triggered(code, state):
            continue
        if state.checks_only and transform_class not in CHECKS_ONLY:
            continue
        seen_warnings, seen_changes = len(state.warnings), len(state.changes)
        # A fresh context per pass: libcst re-runs the import visitors of every import a
        # context has ever scheduled, so a shared one would redo that work in each pass.
        context = CodemodContext(filename=filename)
        state.text = code
        state.line_map = line_map
        new_module = transform_class(context, state).transform_module(module)
        warnings.extend(_remap(state.warnings[seen_warnings:], line_map))
        changes.extend(
            Change(r.code, d.line, r.message)
            for r, d in zip(
                state.changes[seen_changes:],
                _remap(state.changes[seen_changes:], line_map),
                strict=True,
            )
        )
        # A pass that changed nothing hands back the tree it was given (copy-on-write
        # visiting, transforms/_support/visiting.py): no code to generate and compare.
        if new_module is not module:
            new_code = printed(new_module)  # its positions too, for the next pass
            if new_code != code:
                line_map = line_map.then(code, new_code)
                code = new_code
                module = new_module
            elif not new_module.deep_equals(module):
                module = new_module
        # else the pass left the tree as it was: keep the same object, so the next pass
        # reuses its metadata (state.metadata) instead of resolving it again.
        if state.skip or not state.has_dataparallel:
            break  # every later pass only acts on DataParallel uses
    changes = [c for c in changes if not c.description.startswith(tuple(state.withdrawn))]
    warnings = [
        d
        for d in warnings
        if not _scale_withdrawn(d, state.withdrawn)
        and not _alike(d, state)
        and not any(first <= d.line <= last for first, last in state.dropped_spans)
    ]
    # one finding said by two passes at one place (a running figure the data pass and the
    # batch pass both see: round 35's loader wrapper) is said once
    warnings = list(dict.fromkeys(warnings))
    if any(d.code == "DP005" for d in warnings) and SHARD in code:
        warnings = _split_whiles_said(warnings, module, line_map)
    if state.shared_spans:  # a memory filled in the migration's ddp_same_random block
        warnings = [
            dataclasses.replace(
                d, message=shared_fill(d.message, state.shared_spans, state.memory_fills)
            )
            if d.code == "DP200"
            else d
            for d in warnings
        ]
    if state.skip or not state.has_dataparallel:
        # Nothing was migrated: keep the input byte for byte, report only why.
        code = source
        changes = []
    else:
        # imports in isort's places, new long lines wrapped to the project's width
        width = options.line_length or DEFAULT_LINE_LENGTH
        code = tidy(source, code, width, state.facts.helpers_first_party)
    warnings = [_scatter_dim_note(d, changes, state) for d in warnings]
    warnings.sort(key=lambda d: (d.line, d.col, d.code))
    if code != source:
        code = _mark(source, code, warnings, options)
    # a batch sampler's shard is told also once written (DP082 in the importer, re-derived),
    # a function yielding a sharded loader's batches and a class's method taking them (no
    # second cut in the importer)
    kept = (*state.standing, *(e for e in state.exports if e.batches or e.yields or e.taker))
    exports = (
        tuple(state.exports) if code != source else tuple(e for e in state.exports if e in kept)
    )
    factories = tuple(state.evaluation_factories) if code != source else ()
    helpers: tuple[str, ...] = ()
    helpers_module = ""
    if state.helper_imports is not None:  # also unchanged: a program migrated before
        helpers = helper_closure(state.helpers | helpers_defining(state.helper_imports))
        if state.program is None and code != source:  # on its own: its module beside it
            helpers_module = render_module(helpers)
    return MigrationResult(
        source,
        code,
        tuple(warnings),
        tuple(changes),
        exports,
        factories,
        # also unchanged (migrated before): its callees' batches are its loaders' shares
        tuple(state.handoffs),
        helpers,
        helpers_module,
        epoch_loops=tuple(dict.fromkeys(state.epoch_loops)),
        share_attributes=tuple(dict.fromkeys(state.share_attributes)),
    )


def _scale_withdrawn(warning: Diagnostic, withdrawn: set[str]) -> bool:
    """DP120 names a summed loss's WORLD_SIZE scale the batches pass took back (the loss
    sums a whole batch every rank takes alike): its penalty is DataParallel's then."""
    losses = (w.removeprefix(SCALED_LOSS).removesuffix(" by WORLD_SIZE").strip() for w in withdrawn)
    return warning.code == "DP120" and any(
        f" in the summed loss `{loss}` (" in warning.message for loss in losses
    )


def _split_whiles_said(
    warnings: list[Diagnostic], module: cst.Module, line_map: LineMap
) -> list[Diagnostic]:
    """Less DP005 ("data sliced by hand: every process trains on the same samples", the
    hazards pass's shape rule, said before the batch proof runs) in a `while` loop whose
    body now splits a batch (ddp_shard_batch: the proof split what the loop cuts, or a
    migration before did; where it cannot, DP047 says so). Judged on the migrated code, so
    `--check` of the migrated file answers alike."""
    spans: list[tuple[int, int]] = []
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    for node, where in positions.items():
        if isinstance(node, cst.While) and SHARD in module.code_for_node(node.body):
            spans.append((line_map(where.start.line), line_map(where.end.line)))
    return [
        d
        for d in warnings
        if d.code != "DP005" or not any(first <= d.line <= last for first, last in spans)
    ]


def _alike(warning: Diagnostic, state: MigrationState) -> bool:
    """DP006 at a draw from a stream ddp_same_random shares (state.stream_draws) in a
    statement the batches pass put in that block (state.alike_spans): every rank draws rank
    0's numbers there and cuts its part of them, as DataParallel scattered one draw; "each
    rank draws its own" is false (the hazards pass does not say it on the migrated file)."""
    return (
        warning.code == "DP006"
        and (warning.line, warning.col) in state.stream_draws
        and any(first <= warning.line <= last for first, last in state.alike_spans)
    )


def _mark(source: str, code: str, warnings: list[Diagnostic], options: MigrateOptions) -> str:
    """`code` with a `# dp2ddp: DPxxx` marker above each statement holding a warning the
    passes cannot re-derive from `code` (migrate/markers.py), unless it is silenced."""
    marked = [
        d
        for d in filter_diagnostics(warnings, source, options.ignore)
        for d in (d.places or (d,))
        if d.code in MARKED
    ]
    width = options.line_length or DEFAULT_LINE_LENGTH
    return mark(source, code, [(d.line, d.code) for d in marked], width)


def _remap(reports: list[RawReport], line_map: LineMap) -> list[Diagnostic]:
    return [
        Diagnostic(
            line_map(r.line), r.col, r.code, r.message, tuple(_remap(list(r.places), line_map))
        )
        for r in reports
    ]


def _scatter_dim_note(
    warning: Diagnostic, changes: list[Change], state: MigrationState
) -> Diagnostic:
    """DP001 (a wrap with a `dim` other than 0) says what the migration did with the
    batches, which only the passes after the wrap's know: split along that dim by the
    batches pass (its lines), left to a DataLoader's DistributedSampler (split by samples),
    or not split at all in this module."""
    if warning.code != "DP001":
        return warning
    dim = warning.message.rpartition("dim=")[2]
    split = sorted(
        {c.line for c in changes if c.transform == "batches" and "split" in c.description}
    )
    sharded = sorted(
        {c.line for c in changes if c.transform == "data" and "sharded with" in c.description}
    )
    if split:
        lines = ", ".join(map(str, split))
        plural = "s" * (len(split) > 1)
        what = f"batches split along dim {dim} with ddp_shard_batch (line{plural} {lines})"
    elif sharded:
        lines = ", ".join(map(str, sharded))
        plural = "s" * (len(sharded) > 1)
        what = (
            f"no batch split along dim {dim}: the DataLoader{plural} at line{plural} {lines} "
            f"{'are' if plural else 'is'} sharded by samples (DistributedSampler), right only "
            "where the model's input takes its batch dimension from the samples"
        )
    elif state.program is not None:
        what = (
            f"no batch of this module split along dim {dim} (a module of the program that "
            "builds the batches says how it splits them: its changes, or DP037)"
        )
    else:
        what = f"no batch split along dim {dim}: every rank gets the whole batch it is given"
    return dataclasses.replace(warning, message=f"{warning.message}; {what}")
