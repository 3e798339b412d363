"""Fingerprint the samples each process feeds its model (inside the user's processes).

`nn.Module.__call__` is wrapped: on every *outermost* call of a module that has parameters,
with grad enabled (a training forward: the DDP or DataParallel wrapper, or the bare model
when the original only wraps with several GPUs), the first tensor argument is hashed per
sample (dim 0; and per index along dim 1, for DataParallel(dim=1)'s sequence-first batches;
a later one of the batch's size where the first holds one value per sample: sample_tensor).
Nested calls, and DataParallel's replicas on its worker threads, are inside
an outermost call and are skipped; so are forwards traced by torch.jit (a graph for
TensorBoard, an export). The harness then checks that the DDP ranks' samples at
each step are disjoint and together are the original's batch. The DataParallel/DDP
constructors are wrapped too: to name parameters and to know DataParallel's device count.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Mapping
from typing import Any

import torch
from torch.nn.parallel import DataParallel, DistributedDataParallel

from dp2ddp.verify import float_order, forward_state
from dp2ddp.verify.digest import sample_digests
from dp2ddp.verify.recorder import Recorder
from dp2ddp.verify.replicas import chunked_forward, tensors_in, whole_forward


def first_tensor(value: object) -> torch.Tensor | None:
    """The first tensor in positional args, then keyword args (through lists/tuples/dicts;
    a value too deep to follow is passed over)."""
    return next((t for t in tensors_in(value) if t is not None), None)


def sample_tensor(value: object) -> torch.Tensor | None:
    """The tensor whose rows tell a batch's samples apart: the first tensor, unless it
    holds one value per sample (an id, a label, a length: alike for many samples) and a
    later tensor of the same batch size holds more. ming024/FastSpeech2@d4e79eb calls
    `model(speakers, texts, ...)` with every speaker id 0 (a one-speaker set): hashed, the
    ids made every rank's samples "the same", and verify blamed a missing
    DistributedSampler that was there. Chosen by shapes, not values, and alike for a
    model's arguments and a DataLoader's batch (the same tensors in the same order), so
    the samples the model is fed are still found among those loaded."""
    first = first_tensor(value)
    if first is None or first.dim() == 0 or first.shape[0] == 0 or first[0].numel() > 1:
        return first
    rows = first.shape[0]
    return next(
        (
            t
            for t in tensors_in(value)
            if t is not None and t.dim() > 0 and t.shape[0] == rows and t[0].numel() > 1
        ),
        first,
    )


def sample_rows(value: object, tensor: torch.Tensor) -> list[str]:
    """One digest per sample of `tensor` (sample_tensor's choice from `value`). Where it holds
    one value per sample and sits in a dict beside other such tensors of its batch size (a
    dict of feature columns: datawhalechina/torch-rechub@5a73b2e feeds DeepFM
    `{name: tensor(B)}` for 39 features), a sample is its row across all of them, as
    DataParallel's scatter cuts every tensor of the dict along dim 0: the first column alone
    (a sparse id, 0 for most samples) made the ranks' different samples "the same data"
    (docs/real-world.md, stop 47, w3). Only a dict's columns join: a loader's `(x, y)` pair
    is a tuple whose `y` the model is not fed, and the model's samples must be found among
    the loaded ones."""
    columns = _dict_columns(value, tensor, 0)
    if len(columns) < 2:
        return sample_digests(tensor)
    per_column = [sample_digests(t) for t in columns]
    return [
        hashlib.blake2b("".join(row).encode(), digest_size=8).hexdigest()
        for row in zip(*per_column, strict=True)
    ]


def _dict_columns(value: object, tensor: torch.Tensor, depth: int) -> list[torch.Tensor]:
    """The tensors of one value per sample, of `tensor`'s batch size, in the dict that holds
    `tensor` directly (itself among them); [] where `tensor` holds more per sample or sits
    in no dict."""
    if tensor.dim() == 0 or tensor.shape[0] == 0 or tensor[0].numel() > 1 or depth > 4:
        return []
    if isinstance(value, Mapping):
        items = list(value.values())
        if any(item is tensor for item in items):
            rows = tensor.shape[0]
            return [
                t
                for t in items
                if isinstance(t, torch.Tensor) and t.dim() > 0 and t.shape[0] == rows
            ]
    elif not isinstance(value, list | tuple):
        return []
    for item in value.values() if isinstance(value, Mapping) else value:
        found = _dict_columns(item, tensor, depth + 1)
        if found:
            return found
    return []


#: Dim 1 is hashed per index too (a DataParallel(dim=1) batch is its columns) when it is no
#: longer than this: a batch size, not a feature vector's length.
MAX_DIM1_SAMPLES = 4096


class _Depth:
    """Process-wide (not per thread: DataParallel's replicas run on worker threads)."""

    value = 0


def install(recorder: Recorder) -> None:
    for cls in (DataParallel, DistributedDataParallel):
        _wrap_init(recorder, cls)
    native_call = torch.nn.Module.__call__

    @functools.wraps(native_call)
    def __call__(self: torch.nn.Module, *args: Any, **kwargs: Any) -> Any:
        held = not _Depth.value and forward_state.holds_state(self)
        if held and (not recorder.recording or not torch.is_grad_enabled()):
            return _as_replicas(recorder, native_call, self, args, kwargs)
        if (
            _Depth.value
            or not recorder.recording
            or not torch.is_grad_enabled()
            or torch._C._get_tracing_state() is not None
        ):
            # A traced forward is no training step's: bubbliiiing/yolov4-tiny-pytorch@1f2a5b9
            # traces its model on rank 0 alone for TensorBoard (`add_graph(model,
            # torch.randn(2, ...))`); recorded, its 2 random samples took model number 0 on
            # rank 0 and in the original, the DDP wrapper that number on rank 1, and verify
            # said "the ranks' batches are not the original's batch (original: 2 samples)".
            return native_call(self, *args, **kwargs)
        _Depth.value += 1
        try:
            if next(self.parameters(), None) is not None:
                tensor = sample_tensor((args, kwargs))
                span = None
                if tensor is not None:
                    span = recorder.record_inputs(
                        recorder.model_ordinal(self),
                        sample_rows((args, kwargs), tensor),
                        sample_digests(tensor.transpose(0, 1))
                        if tensor.dim() > 1 and tensor.shape[1] <= MAX_DIM1_SAMPLES
                        else None,
                    )
                    recorder.forward_batch = tensor.size(0) if tensor.dim() else None
                    recorder.forward_columns = tensor.size(1) if tensor.dim() > 1 else None
                else:
                    recorder.note_unsampled(self)
                before = recorder.forward_began()
                done, output = chunked_forward(recorder, native_call, self, args, kwargs)
                if not done:
                    output = whole_forward(recorder, native_call, self, args, kwargs)
                    float_order.capture(recorder, native_call, self, args, kwargs, output)
                recorder.forward_ended(before)
                recorder.fed.forward(output, span)  # a backward reaching it marks its batch
                return output
            else:
                recorder.note_stateful(self)
            return native_call(self, *args, **kwargs)
        finally:
            _Depth.value -= 1
            recorder.forward_batch = recorder.forward_columns = None

    torch.nn.Module.__call__ = __call__  # type: ignore[method-assign]


def _as_replicas(
    recorder: Recorder,
    native_call: Callable[..., Any],
    module: torch.nn.Module,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> Any:
    """A forward outside the compared training steps (evaluation, no gradient, after them)
    of a model whose replicas kept state on `self`: as replicas too, so that the state meets
    the rows it was sized by (forward_state.py); over the whole batch where it cannot."""
    _Depth.value += 1
    try:
        done, output = chunked_forward(recorder, native_call, module, args, kwargs)
        return output if done else native_call(module, *args, **kwargs)
    finally:
        _Depth.value -= 1


def _wrap_init(recorder: Recorder, cls: type[torch.nn.Module]) -> None:
    native_init = cls.__init__

    @functools.wraps(native_init)
    def __init__(self: torch.nn.Module, *args: Any, **kwargs: Any) -> None:
        native_init(self, *args, **kwargs)
        # DataParallel(module, device_ids, output_device, dim): on a machine without GPUs
        # its __init__ returns before it stores `dim`, so it is read from the arguments.
        dim = kwargs.get("dim", args[3] if cls is DataParallel and len(args) > 3 else 0)
        recorder.register_wrapper(self, dim if isinstance(dim, int) else 0)

    cls.__init__ = __init__  # type: ignore[method-assign]
