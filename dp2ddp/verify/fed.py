"""Which loaded batches fed a step that updates parameters.

A DataLoader batch yielded with gradients on while a wrapped model trains is counted as
training input (alignment._training). A validation loop run that way, with no `no_grad`
and no `model.eval()` (kathrinse/TabSurvey@454b8b2: fit()'s early-stopping loop), feeds
the model batches whose output no backward reaches; the migration leaves that loader whole
on every rank (DP015), so counted, its samples showed as "ranks overlap" and verify blamed
the dataset (round 7, v4-F). Measured here, not guessed from the loop: every recorded
forward's output gets a gradient hook; a loaded batch after which the wrapped models ran
forwards, none of them reached by a backward before the next batch was loaded, fed no
update, and is dropped from the window's loaded samples when the optimizer steps. Where no
forward of the window was reached by a backward (the hooks could not see it: an output that
needs no gradient), nothing is dropped. A batch with no forward after it (two loaders read
before one forward) is kept.

The same holds for the model inputs of a forward itself (`InputSpan`): a forward whose
output needs a gradient that no backward reached, in a window where another forward was
reached, fed no update, and its inputs are dropped from the window's (`settle`: one
window later, where a backward may still reach it). A character GPT
samples text between steps in train mode (glouppe/info8010-deep-learning@9175a6f gpt-v6:
`lm_generate` after `lm.train()`): its prompts and sampled tokens were counted as training
samples, and since verify's dropout alignment draws each rank's masks, the ranks sampled
other tokens and verify said "ranks overlap" for batches every rank drew alike (stop 54 r1-B).
A forward whose output needs no gradient (a frozen teacher) is kept: no hook can tell.

A whole pass over a loader with no recorded forward between its first batch and its end
(`StopIteration`) fed no step either: a statistics pass before training (thuml/Koopa@a2e0bb7
sums each batch's spectrum over the training loader to pick its model's frequencies) was
counted into step 1's batch, "68+68 ... forming the original's batch of 136" (stop 56 v2).
Its batches are dropped when the window's step was trained (`exhausted`). Batches read
without a forward and then fed together (`torch.cat` of two `next()`s) are no whole pass."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import torch


@dataclass
class _Batch:
    rows: tuple[int, int]  # its place in the window's `loaded`
    columns: tuple[int, int]  # ... in `loaded_dim1`
    split: int  # ... in `loaded_split`
    forwards: int = 0  # recorded forwards after it, before the next batch
    trained: bool = False  # one of them was reached by a backward
    source: int = 0  # the loader iterator that yielded it
    passed: bool = False  # its iterator ended with no forward since its first batch


@dataclass
class InputSpan:
    """Where one forward's model inputs lie in the window's `inputs` / `inputs_dim1`."""

    ordinal: str
    rows: tuple[int, int]
    columns: tuple[int, int] | None
    trained: bool = False  # a backward reached the forward's output


class FedBatches:
    """The current window's loaded batches, and which fed a trained forward."""

    def __init__(self) -> None:
        self.batches: list[_Batch] = []
        self.trained = False  # a forward of this window was reached by a backward
        #: the recorded forwards whose output needs a gradient, with their inputs' place
        self.spans: list[InputSpan] = []
        #: the previous window's forwards no backward had reached when it closed
        self.pending: list[tuple[Any, InputSpan]] = []
        self.forwards = 0  # recorded forwards so far
        #: per loader iterator: the forwards recorded when it yielded its first batch
        self.pass_began: dict[int, int] = {}

    def loaded(
        self,
        window: Any,
        rows: list[str],
        columns: list[str] | None,
        split: int,
        source: int = 0,
    ) -> None:
        """A training batch of the loader iterator `source`: its samples into the window,
        its place kept."""
        self.pass_began.setdefault(source, self.forwards)
        start, start1 = len(window.loaded), len(window.loaded_dim1)
        window.loaded.extend(rows)
        window.loaded_split.append(split)
        if columns is not None:
            window.loaded_dim1.extend(columns)
        self.batches.append(
            _Batch(
                (start, len(window.loaded)),
                (start1, len(window.loaded_dim1)),
                len(window.loaded_split) - 1,
                source=source,
            )
        )

    def exhausted(self, source: int) -> None:
        """The loader iterator `source` ended: where no forward was recorded since its first
        batch, the pass fed no step, and its batches of this window are dropped at close."""
        began = self.pass_began.pop(source, None)
        if began is None or began != self.forwards:
            return
        for batch in self.batches:
            if batch.source == source:
                batch.passed = True

    def forward(self, output: Any, span: InputSpan | None = None) -> None:
        """A recorded forward of a wrapped model: a hook on its output's tensors marks the
        last loaded batch, the forward's inputs (`span`) and the window trained when a
        backward reaches one."""
        self.forwards += 1
        batch = self.batches[-1] if self.batches else None
        if batch is not None:
            batch.forwards += 1

        def reached(grad: torch.Tensor) -> None:
            self.trained = True
            if batch is not None:
                batch.trained = True
            if span is not None:
                span.trained = True

        hooked = False
        for tensor in _tensors(output, 0):
            if tensor.requires_grad:
                tensor.register_hook(reached)  # type: ignore[no-untyped-call]
                hooked = True
        if hooked and span is not None:
            self.spans.append(span)

    def close(self, window: Any) -> None:
        """At the optimizer's step: drop the batches that fed only untrained forwards, and
        those of a whole pass that fed none."""
        if self.trained:
            for batch in reversed(self.batches):
                if batch.passed or (batch.forwards and not batch.trained):
                    del window.loaded[batch.rows[0] : batch.rows[1]]
                    del window.loaded_dim1[batch.columns[0] : batch.columns[1]]
                    del window.loaded_split[batch.split]
        self.settle()
        if self.trained:
            self.pending = [(window, span) for span in self.spans if not span.trained]
        self.batches = []
        self.spans = []
        self.trained = False

    def settle(self) -> None:
        """Drop the inputs of the previous window's forwards that no backward reached by
        now. Decided a window late: a GAN's `fake = G(z)` feeds D's step detached and G's
        step, after D's, through `D(fake)`, so G's forward is reached only in the next
        window. At the end of the recording the last window's are dropped too."""
        for window, span in reversed(self.pending):  # later first: earlier places stay valid
            if span.trained:
                continue
            del window.inputs[span.ordinal][span.rows[0] : span.rows[1]]
            if span.columns is not None:
                del window.inputs_dim1[span.ordinal][span.columns[0] : span.columns[1]]
        self.pending = []


def _tensors(value: Any, depth: int) -> list[torch.Tensor]:
    """The tensors of a forward's output (nested tuples, lists, dicts; a few levels)."""
    if isinstance(value, torch.Tensor):
        return [value]
    if depth > 3:
        return []
    items = value.values() if isinstance(value, Mapping) else value
    if not isinstance(value, Mapping | list | tuple):
        return []
    return [t for item in items for t in _tensors(item, depth + 1)]
