"""Records optimizer steps inside the user's process and stops it after K of them.

Global optimizer step hooks snapshot each optimizer's parameters before step() and store the
update (after - before) after it; rank 0 (and the original) keep the tensors, every rank keeps
a bitwise hash of its parameters so that the harness can check the replicas stayed in sync.
The time between two steps is a *window*: the samples the wrapped model saw and the
randomness the script drew in it are attributed to the step that ends it.

K counts optimizer steps globally, in order, whichever optimizer makes them: a script that
creates a new optimizer every epoch or phase stops after K steps all the same, and a GAN's
two optimizers line up step by step between the runs. A parameter is keyed by its identity
(the order in which steps first meet it), not by the optimizer holding it, so the same weight
keeps its key when its optimizer is re-created. A step after which a parameter is NaN or inf
ends the recording there: nothing later is comparable.

With --to-end the process is not stopped at step K: the record is saved (COMPARED) and the
hooks then only count steps until the script ends by itself, when the final parameters are
saved too (FINISHED).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import sys
import weakref
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch
from torch.optim.optimizer import (
    register_optimizer_step_post_hook,
    register_optimizer_step_pre_hook,
)

from dp2ddp.verify import arrays, protocol
from dp2ddp.verify.data_optimizers import steps_data
from dp2ddp.verify.digest import float64_bytes, tensor_digest
from dp2ddp.verify.fed import FedBatches, InputSpan
from dp2ddp.verify.writes import WriteLog

if TYPE_CHECKING:
    from dp2ddp.verify.reach import LineReach

JSONScalar = int | float | bool | str | None
_WRAPPERS = (torch.nn.DataParallel, torch.nn.parallel.DistributedDataParallel)


class HarnessFailure(BaseException):
    """dp2ddp's own instrumentation failed (not the user's script). BaseException: the
    script's `except Exception` must not swallow it."""


@dataclass
class Window:
    """What happened between the previous optimizer step and step `index` (1-based)."""

    index: int
    #: model ordinal (str for JSON) -> per-sample digests of its first tensor input
    inputs: dict[str, list[str]] = field(default_factory=dict)
    #: the same, per index along dim 1 (a sequence-first model's batch: DataParallel(dim=1))
    inputs_dim1: dict[str, list[str]] = field(default_factory=dict)
    #: model ordinal (str) -> dim 0 of the first tensor of each training forward (the
    #: original: before DataParallel's scatter): who normalised over how many (causes)
    forwards: dict[str, list[int]] = field(default_factory=dict)
    #: per-sample digests of the first tensor of every batch a DataLoader yielded for training
    #: (gradients on, not every wrapped model in eval mode: alignment._training)
    loaded: list[str] = field(default_factory=list)
    #: the same, per index along dim 1 (a time-major batch for DataParallel(dim=1))
    loaded_dim1: list[str] = field(default_factory=list)
    #: per batch in `loaded`: the dim whose size is the loader's batch size, the sampler's
    #: indices (0: batch-major, 1: a collate's time-major batch), -1 where not told apart
    loaded_split: list[int] = field(default_factory=list)
    #: batches the DataLoaders yielded for training, tensors or not (a collate_fn's list
    #: of numpy parts): steps per batch (data_evidence.parts_cause)
    batches: int = 0
    dropout: int = 0  # dropout calls that drew a mask
    batchnorm: int = 0  # BatchNorm calls normalising with the batch's own statistics
    #: the original: BatchNorm calls normalised per DataParallel chunk (probes)
    batchnorm_chunked: int = 0
    #: the shape of the training BatchNorm input (each chunk, each rank's) with the fewest
    #: values per channel (probes): two values normalise to +-1 whatever they are (causes)
    batchnorm_fewest: list[int] = field(default_factory=list)
    #: shapes of training BatchNorm inputs normalised whole: a chunk would hold one value
    #: per channel (a forward outside the wrap: a dummy batch in __init__; probes)
    batchnorm_whole: list[list[int]] = field(default_factory=list)
    dropout_aligned: int = 0  # dropout calls drawn as the ranks draw them (probes)
    #: of `dropout`: a recurrent layer's dropout= between its layers (probes._rnn_probe)
    rnn_dropout: int = 0
    dropout_off: int = 0  # dropout calls that could not be aligned: switched off (probes)
    #: rank (str; the original: the rank each chunk's mask is drawn as) -> `seed:shape:p` of
    #: each aligned draw, in order: equal lists drew equal masks (causes._dropout_lined_up)
    dropout_draws: dict[str, list[str]] = field(default_factory=dict)
    #: the original: training forwards run chunk by chunk as DataParallel's replicas (replicas)
    replicated: int = 0
    loader_started: bool = False  # a DataLoader iterator was created (draws a seed)
    #: the global RNGs advanced outside the models' training forwards (None: not measurable)
    rng_consumed: bool | None = None
    rng_outside: bool = False  # they advanced between two training forwards of this window
    python_outside: bool = False  # so did Python's or numpy's (not a loader's seed)
    #: training forwards during which the global RNGs advanced: draws inside the model's
    #: forward (a diffusion step, DropPath), not aligned dropout (probes restore the RNG)
    forward_draws: int = 0


def rng_digest() -> str:
    """Hash of the global RNG states the script can draw from (torch, CUDA, random, numpy)."""
    h = hashlib.blake2b(digest_size=12)
    h.update(bytes(torch.get_rng_state().tolist()))
    if _cuda_in_use():
        for state in torch.cuda.get_rng_state_all():
            h.update(bytes(state.tolist()))
    h.update(python_rng_digest().encode())
    return h.hexdigest()


def python_rng_digest() -> str:
    """Hash of Python's and numpy's global RNG states: what a DataLoader's iterator does not
    draw from (its seed is torch's), so draws of a window that starts a loader are still
    seen there (PF-Net's per-sample `random.sample` viewpoints, stop 57: "no known cause")."""
    h = hashlib.blake2b(digest_size=12)
    h.update(repr(random.getstate()).encode())
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        # The Mersenne Twister's key only changes every 624 draws: the position (and the
        # cached Gaussian) say that `np.random.rand(1)` drew.
        state = numpy.random.get_state()
        h.update(state[1].tobytes())
        h.update(repr(state[2:]).encode())
    return h.hexdigest()


#: Where the migration's helpers live: its `_dp2ddp.py` module, or the script itself (a
#: single-file migration inlines them).
_HELPER_MODULES = ("_dp2ddp", "__main__")


def _program_line(with_function: bool = False) -> str:
    """`path:line` of the program's innermost frame on the stack (its `optimizer.step()`):
    a cause then names the step it means (HSR's discriminator step, stop 57 v1-G). With
    `with_function`, `path:line function`, the path relative to the working folder where it
    lies there (the migrated run's is verify's copy: the same relative path as the user's),
    then a tab and the file's real path: the file this run executed, whose lines a cause
    reads (draw_cause.shared_reads; stop 61)."""
    from dp2ddp.verify.reach import own_file  # the runner's side; reach imports no recorder

    frame = sys._getframe(1)
    while frame is not None:
        path = os.path.realpath(frame.f_code.co_filename)
        if own_file(path) and not with_function:
            return f"{path}:{frame.f_lineno}"
        if own_file(path) and os.path.basename(path) != "_dp2ddp.py":
            here = os.path.realpath(os.getcwd())
            shown = os.path.relpath(path, here) if path.startswith(here + os.sep) else path
            return f"{shown}:{frame.f_lineno} {frame.f_code.co_name}\t{path}"
        frame = frame.f_back  # type: ignore[assignment]
    return ""


def _scalar(value: object) -> JSONScalar | list[JSONScalar]:
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        return float(value.item())
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    if isinstance(value, tuple | list) and all(
        isinstance(v, bool | int | float | str) or v is None for v in value
    ):
        return list(value)
    return repr(value)[:80]


class Recorder:
    """State of one instrumented process (the original, or one DDP rank)."""

    def __init__(self, options: protocol.RunnerOptions, rank: int, world: int, outdir: Path):
        self.options = options
        self.rank = rank
        self.world = world
        self.outdir = outdir
        self.keep_tensors = rank == 0
        self._optimizers: dict[int, int] = {}  # id(optimizer) -> index by first step
        self._refs: list[weakref.ref[torch.optim.Optimizer]] = []
        self._counts: list[int] = []
        #: id(parameter) -> (the parameter, its key): a strong reference, so that an id is
        #: never reused for another tensor, and the final parameters can be read at the end.
        self._keys: dict[int, tuple[torch.Tensor, str]] = {}
        self._unnamed = 0  # parameters keyed by their place (no model names them)
        self._before: list[torch.Tensor] = []
        self._grads: dict[str, torch.Tensor] = {}
        #: False once the K compared steps are recorded (--to-end: the script goes on).
        self.recording = True
        self.later_steps = 0  # optimizer steps after the compared ones (--to-end)
        self.writes: WriteLog | None = None
        #: the program's lines run until the compared steps end (reach.py)
        self.reach: LineReach | None = None
        self._rng_mark: str | None = None
        self._python_mark = ""
        self._shared_block: type | None = None
        self.names: dict[str, str] = {}
        self.shapes: dict[str, list[int]] = {}
        self.dtypes: dict[str, str] = {}
        self.init: dict[str, torch.Tensor] = {}
        self.updates: list[dict[str, torch.Tensor]] = []
        #: each step's gradients as the optimizer received them (after clipping; on a DDP
        #: rank, averaged): an adaptive optimizer's update is judged on them (compare.py)
        self.grads: list[dict[str, torch.Tensor]] = []
        #: float_order.py: step 1's capture in the original, run once before its update
        self.float_probe: Any = None
        self.on_first_step: Callable[[], None] | None = None
        #: the float-order floor per parameter name (None: not measured)
        self.float_floor: dict[str, float] | None = None
        self.param_rms: list[dict[str, float]] = []
        self.events: list[dict[str, Any]] = []
        self.windows: list[Window] = []
        self.current = Window(1)
        self.wrappers: list[weakref.ref[torch.nn.Module]] = []  # DataParallel / DDP
        self.models: list[weakref.ref[torch.nn.Module]] = []  # outermost modules called
        #: outermost modules with parameters called in training on no tensor (a graph
        #: object): their parameters' names where neither models nor wrappers give them
        self.unsampled: list[weakref.ref[torch.nn.Module]] = []
        #: outermost modules called in training that hold buffers and no parameters (a memory
        #: bank of a plain module): their buffers are fingerprinted with the models' (V3)
        self.stateful: list[weakref.ref[torch.nn.Module]] = []
        self._looked_at: weakref.WeakSet[torch.nn.Module] = weakref.WeakSet()
        self.wrapper_info: list[dict[str, JSONScalar]] = []
        self.samplers: list[dict[str, JSONScalar | list[int]]] = []
        #: per DataLoader: batch size, sampler, dataset digest, its own generators (own_rngs)
        self.loaders: list[dict[str, Any]] = []
        self.on_stop: list[Callable[[], None]] = []
        #: dim 0 of the first tensor of the outermost training forward now running, and of
        #: the last batch a DataLoader yielded (probes: is a dropout input batch-first?)
        self.forward_batch: int | None = None
        self.loaded_batch: int | None = None
        #: dim 1 of that forward's first tensor; and the `dim` of each `DataParallel(...)` the
        #: original's text writes (scan.wrap_dims), for a wrap the run does not build
        self.forward_columns: int | None = None
        self.written_dims: frozenset[int] = frozenset()
        self.fed = FedBatches()  # the window's loaded batches, and which fed an update
        #: the original: the DataParallel replica whose chunk the forward now runs (replicas)
        self.replica: int | None = None
        #: DataLoader sample reads now running (alignment's fetch), and the places (`path:line
        #: function`) of the migration's `with ddp_same_random():` blocks entered in them:
        #: there a rank draws rank 0's values for its own samples (stop 59 v1-C)
        self.reading_samples = 0
        self.shared_reads: dict[str, int] = {}
        #: id(parameter) -> (it, its digest) at the first recorded step; and the parameters
        #: first stepped later that had changed since then, outside any optimizer (an
        #: adversarial weight perturbation: stop 59 v3-D), key -> [the step that met them,
        #: their digest at step 1] (the runs held the same values then where these agree)
        self._first_prints: dict[int, tuple[torch.Tensor, str]] = {}
        self.moved_before_first: dict[str, tuple[int, str]] = {}
        self.forward_state: dict[str, int] = {}  # `Class.attr` -> rows (forward_state.py)

    # -- wiring ------------------------------------------------------------------------------
    def install(self) -> None:
        register_optimizer_step_pre_hook(self._guard(self._pre_step))
        register_optimizer_step_post_hook(self._guard(self._post_step))
        self._write_progress("running")

    def _guard(
        self, hook: Callable[[torch.optim.Optimizer], None]
    ) -> Callable[[torch.optim.Optimizer, tuple[Any, ...], dict[str, Any]], None]:
        def wrapped(opt: torch.optim.Optimizer, args: tuple[Any, ...], kw: dict[str, Any]) -> None:
            try:
                if not steps_data(self, opt):  # images optimised, not a model (genda)
                    hook(opt)
            except HarnessFailure:
                raise
            except Exception as exc:  # our bug, not the script's: say so
                raise HarnessFailure(f"{type(exc).__name__}: {exc}") from exc

        return wrapped

    def register_wrapper(self, module: torch.nn.Module, dim: int = 0) -> int:
        self.wrappers.append(weakref.ref(module))
        device_ids = getattr(module, "device_ids", None)
        self.wrapper_info.append(
            {
                "class": type(module).__name__,
                "devices": len(device_ids) if isinstance(device_ids, list) else 0,
                "dim": dim,
            }
        )
        return len(self.wrappers) - 1

    def scatter_dim(self) -> int:
        """The dim DataParallel splits the batch along (as sharding.scatter_dim): 1 where
        every DataParallel built says dim=1, or, where none was built (a wrap under a GPU
        count, false on CPU), where every one written says so; else 0."""
        built = [w.get("dim") for w in self.wrapper_info if w.get("class") == "DataParallel"]
        if not built:
            return 1 if self.written_dims == {1} else 0
        return 1 if all(dim == 1 for dim in built) else 0

    def model_ordinal(self, module: torch.nn.Module) -> int:
        """Number of a model fed by the script, in order of first forward; a wrapper is its
        module (FFly/pytorch-cifar10-all-in-gpu@93d9401: a report's forward before a wrap the
        original skips on CPU numbered the DDP wrapper 1: "original: 0 samples", stop 63)."""
        module = module.module if isinstance(module, _WRAPPERS) else module
        for ordinal, ref in enumerate(self.models):
            if ref() is module:
                return ordinal
        self.models.append(weakref.ref(module))
        return len(self.models) - 1

    def note_unsampled(self, module: torch.nn.Module) -> None:
        """A model called in training on no tensor verify can sample (a graph object). Its
        parameters are named from it where no model nor wrapper was seen: an original that
        wraps nothing on CPU (`if torch.cuda.device_count() > 1: DataParallel(...)`) had them
        unnamed (p0, p1, ...), its DDP migration named, and verify said "optimized only by
        the migration" of every parameter (stop 54 x2, a GCN on a torch_geometric batch)."""
        if not any(ref() is module for ref in self.unsampled):
            self.unsampled.append(weakref.ref(module))

    def note_stateful(self, module: torch.nn.Module) -> None:
        """An outermost module without parameters called in training: kept if it has
        floating-point buffers (their state can diverge between the runs)."""
        if module in self._looked_at:
            return
        self._looked_at.add(module)
        if any(b.is_floating_point() for b in module.buffers()):
            self.stateful.append(weakref.ref(module))

    def _buffer_prints(self) -> dict[str, list[float]]:
        """Per floating-point buffer of the models and stateful modules: [sum, L2 norm], in
        float64 (names as the parameters', a stateful module's under its class name). Why:
        a buffer changed per rank (a memory bank updated by each rank's part of the batch,
        DP007) is the cause of a later parameter difference; compare.py names it."""
        prints: dict[str, list[float]] = {}
        models = self._named_models()
        owners: list[tuple[str, torch.nn.Module | None]] = [
            ("" if ordinal == 0 else f"model{ordinal}.", model)
            for ordinal, model in enumerate(models)
        ]
        owners += [(f"{type(m).__name__}.", m) for m in (ref() for ref in self.stateful)]
        for prefix, owner in owners:
            if not isinstance(owner, torch.nn.Module):
                continue
            inner = owner.module if isinstance(owner, _WRAPPERS) else owner
            for name, buffer in inner.named_buffers():
                if buffer.is_floating_point() and buffer.numel():
                    values = buffer.detach().double()
                    prints.setdefault(
                        prefix + name,
                        [float(values.sum()), float(values.pow(2).sum().sqrt())],
                    )
        return prints

    def record_inputs(
        self, ordinal: int, digests: list[str], along_dim1: list[str] | None = None
    ) -> InputSpan:
        """Keep a training forward's per-sample digests; where they lie (fed.py drops them
        when no backward reaches the forward)."""
        key = str(ordinal)
        rows = self.current.inputs.setdefault(key, [])
        start = len(rows)
        rows.extend(digests)
        self.current.forwards.setdefault(key, []).append(len(digests))
        columns = None
        if along_dim1 is not None:
            dim1 = self.current.inputs_dim1.setdefault(key, [])
            columns = (len(dim1), len(dim1) + len(along_dim1))
            dim1.extend(along_dim1)
        return InputSpan(key, (start, len(rows)), columns)

    def forward_began(self) -> str:
        """The RNG digest before a training forward; a change since the last mark was drawn
        outside the forwards (the loop's own draws: causes._rng_in_loop)."""
        self.watch_shared_draws()
        now = rng_digest()
        if self._rng_mark is not None and now != self._rng_mark:
            self.current.rng_outside = True
            if python_rng_digest() != self._python_mark:
                self.current.python_outside = True
        return now

    def _mark(self) -> None:
        self._rng_mark = rng_digest()
        self._python_mark = python_rng_digest()

    def watch_shared_draws(self) -> None:
        """Draws in the migration's `with ddp_same_random():` blocks (ddp_draw_share's) are
        rank 0's, the original's: excused (the mark moves past them) where nothing else
        drew since the mark. ModernTCN's masks, `ddp_draw_share(lambda: torch.rand(...))`,
        were named "random numbers drawn inside the training loop" (stop 57)."""
        if self._shared_block is not None:
            return
        found = (getattr(sys.modules.get(n), "ddp_same_random", None) for n in _HELPER_MODULES)
        block = next((b for b in found if isinstance(b, type)), None)
        if block is None or not hasattr(block, "depth"):
            return
        self._shared_block = block
        enter, leave = getattr(block, "__enter__"), getattr(block, "__exit__")  # noqa: B009
        clean: list[bool] = []

        def __enter__(this: Any) -> Any:
            if not getattr(block, "depth", 1):
                clean.append(self._rng_mark is not None and rng_digest() == self._rng_mark)
                if self.reading_samples:
                    place = _program_line(with_function=True)
                    self.shared_reads[place] = self.shared_reads.get(place, 0) + 1
            return enter(this)

        def __exit__(this: Any, *exc: Any) -> Any:
            out = leave(this, *exc)
            if not getattr(block, "depth", 1) and clean and clean.pop():
                self._mark()
            return out

        setattr(block, "__enter__", __enter__)  # noqa: B010  (a class's, not an instance's)
        setattr(block, "__exit__", __exit__)  # noqa: B010

    def forward_ended(self, before: str) -> None:
        """Count a forward that drew from the global RNGs; later draws are measured from here.
        Cold-Diffusion-Models@f8b1379 draws its diffusion steps (`torch.randint`) in forward,
        zczcwh/PoseFormer@a908b29 timm's DropPath: both were "drawn inside the training
        loop" or unexplained (docs/real-world.md, stop 51, w5)."""
        after = rng_digest()
        if after != before:
            self.current.forward_draws += 1
        if self._rng_mark is not None:
            self._rng_mark = after
            self._python_mark = python_rng_digest()

    # -- optimizer hooks ---------------------------------------------------------------------
    def _params(self, opt: torch.optim.Optimizer) -> list[tuple[str, torch.Tensor]]:
        """The optimizer's parameters, each with its key: its name in the wrapped model
        where it has one, else its place among the unnamed ones. Not its place in the
        optimizer: a program that builds its groups from a set (`list(set(model.
        parameters()).difference(...))`, tjddus9597/Proxy-Anchor-CVPR2020@51db570) orders
        them by object id, another order in every process, and parameters matched by
        place were compared with other parameters (V6: "the runs optimize different
        parameters", "ranks in sync NO" while the ranks held identical parameters)."""
        params = []
        names: dict[int, str] | None = None
        for group in opt.param_groups:
            for p in group["params"]:
                if not isinstance(p, torch.Tensor):
                    continue
                known = self._keys.get(id(p))
                if known is None or known[0] is not p:
                    if names is None:
                        names = self._param_names()
                        used = {key for _, key in self._keys.values()}
                    key = names.get(id(p))
                    if key is None or key in used:
                        key = f"p{self._unnamed}"
                        self._unnamed += 1
                        while key in used:
                            key = f"p{self._unnamed}"
                            self._unnamed += 1
                    used.add(key)
                    known = (p, key)
                    self._keys[id(p)] = known
                params.append((known[1], p))
        return params

    def _index(self, opt: torch.optim.Optimizer) -> tuple[int, bool]:
        index = self._optimizers.get(id(opt))
        if index is not None and self._refs[index]() is opt:
            return index, False
        index = len(self._refs)
        self._optimizers[id(opt)] = index
        self._refs.append(weakref.ref(opt))
        self._counts.append(0)
        return index, True

    def _named_models(self) -> list[torch.nn.Module | None]:
        """The modules whose parameter names are the records' keys: the models fed tensors,
        else the wrappers, else the models fed something else (note_unsampled)."""
        for refs in (self.models, self.wrappers, self.unsampled):
            if refs:
                return [ref() for ref in refs]
        return []

    def _param_names(self) -> dict[int, str]:
        """Parameter names inside the model(s), without DataParallel/DDP's `module.`."""
        names: dict[int, str] = {}
        models = self._named_models()
        for ordinal, model in enumerate(models):
            if not isinstance(model, torch.nn.Module):
                continue
            inner = model.module if isinstance(model, _WRAPPERS) else model
            prefix = "" if ordinal == 0 else f"model{ordinal}."
            for name, p in inner.named_parameters():
                names.setdefault(id(p), prefix + name)
        return names

    def _pre_step(self, opt: torch.optim.Optimizer) -> None:
        if not self.recording:
            return
        if self.on_first_step is not None:
            hook, self.on_first_step = self.on_first_step, None
            hook()
        index, first = self._index(opt)
        params = self._params(opt)
        if not self.events and not self._first_prints:
            self._first_prints = {
                id(p): (p, tensor_digest(p))
                for ref in [*self.models, *self.wrappers, *self.unsampled]
                if isinstance(model := ref(), torch.nn.Module)
                for p in model.parameters()
            }
        if first or any(key not in self.names for key, _ in params):
            known = self._param_names()
            for key, p in params:
                if key in self.names:
                    continue
                then = self._first_prints.get(id(p))
                if self.events and then is not None and then[0] is p:
                    if tensor_digest(p) != then[1]:  # changed in place since step 1
                        self.moved_before_first[key] = (len(self.events) + 1, then[1])
                self.names[key] = known.get(id(p), key)
                self.shapes[key] = list(p.shape)
                self.dtypes[key] = str(p.dtype).removeprefix("torch.")
                if self.keep_tensors:
                    self.init[key] = p.detach().cpu().clone()
        self.watch_shared_draws()
        if self._rng_mark is not None and not self.current.loader_started:
            self.current.rng_consumed = self.current.rng_outside or rng_digest() != self._rng_mark
        elif self._rng_mark is not None and (
            self.current.python_outside or python_rng_digest() != self._python_mark
        ):  # a loader's iterator draws torch's seed: Python's and numpy's draws are the loop's
            self.current.rng_consumed = True
        self._before = [p.detach().clone() for _, p in params]
        if self.keep_tensors:
            self._grads = {
                key: p.grad.detach().cpu().clone()
                for key, p in params
                if p.grad is not None and not p.grad.is_sparse and p.grad.is_floating_point()
            }

    def _post_step(self, opt: torch.optim.Optimizer) -> None:
        if not self.recording:
            self.later_steps += 1
            return
        index, _ = self._index(opt)
        params = self._params(opt)
        if len(params) != len(self._before):
            raise HarnessFailure("optimizer parameters changed during step()")
        self._counts[index] += 1
        finite = all(bool(torch.isfinite(p).all()) for _, p in params if p.is_floating_point())
        if self.keep_tensors:
            self.updates.append(
                {
                    key: (p.detach() - b).cpu()
                    for (key, p), b in zip(params, self._before, strict=True)
                }
            )
            self.grads.append(self._grads)
            self.param_rms.append(
                {
                    key: float(b.double().pow(2).mean().sqrt()) if b.numel() else 0.0
                    for (key, _), b in zip(params, self._before, strict=True)
                }
            )
        self._before = []
        self._grads = {}
        self.events.append(
            {
                "index": len(self.events) + 1,
                "optimizer": index,
                "optimizer_step": self._counts[index],
                "class": type(opt).__name__,
                "at": _program_line(),
                "hyper": [
                    {k: _scalar(v) for k, v in group.items() if k != "params"}
                    for group in opt.param_groups
                ],
                "param_hashes": {key: tensor_digest(p) for key, p in params},
                "buffers": self._buffer_prints() if self.keep_tensors else {},
                "finite": finite,
            }
        )
        self.fed.close(self.current)  # batches that fed no update are not training input
        self.windows.append(self.current)
        self.current = Window(self.current.index + 1)
        self._mark()
        self._write_progress("running")
        if not finite:
            self.stop()  # NaN/inf: no later step is comparable (also with --to-end)
        elif len(self.events) >= self.options.steps:
            if self.options.to_end:
                self.end_recording()
            else:
                self.stop()

    def end_recording(self) -> None:
        """--to-end: save what the K steps recorded; the script runs on, only counted."""
        self.finish(protocol.COMPARED)
        if self.reach is not None:
            self.reach.stop()
        self.recording = False
        self._before = []

    # -- ending ------------------------------------------------------------------------------
    def stop(self) -> None:
        """Requested steps reached: save, and end this process here, before the script goes
        on to write checkpoints or start another collective. Every DDP rank reaches the
        same step (each step waits for all ranks' gradients), so all ranks stop together."""
        self.finish(protocol.STOPPED)
        for callback in self.on_stop:
            try:
                callback()
            except Exception:  # best effort: worker shutdown
                pass
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)

    def finish(self, status: str, error: dict[str, str] | None = None) -> None:
        self.fed.settle()  # the last window's forwards no backward reached
        if self.keep_tensors and self.recording:
            save_tensors(
                self.outdir / protocol.TENSORS, self.init, self.updates, self.param_rms, self.grads
            )
        final_hashes: dict[str, str] = {}
        if self.options.to_end and status != protocol.COMPARED:
            final = {key: p.detach() for p, key in self._keys.values()}
            final_hashes = {key: tensor_digest(p) for key, p in final.items()}
            if self.keep_tensors:
                floating = {key: p for key, p in final.items() if p.is_floating_point()}
                arrays.write(self.outdir / protocol.FINAL, {"final": [floating]}, float64_bytes, {})
        record = {
            "status": status,
            "error": error,
            "rank": self.rank,
            "world_size": self.world,
            "steps_target": self.options.steps,
            "names": self.names,
            "shapes": self.shapes,
            "dtypes": self.dtypes,
            "events": self.events,
            "windows": [asdict(w) for w in [*self.windows, self.current]],
            "wrappers": self.wrapper_info,
            "samplers": self.samplers,
            "loaders": self.loaders,
            "device": _device(),
            "later_steps": self.later_steps,
            "float_floor": self.float_floor,
            "final_hashes": final_hashes,
            "writes": self.writes.outputs() if self.writes is not None else [],
            "directories": self.writes.made_directories() if self.writes is not None else [],
            "stdin_reads": self.writes.stdin_reads if self.writes is not None else 0,
            "shared_reads": self.shared_reads,
            "moved_before_first": self.moved_before_first,
            "forward_state": self.forward_state,
            **(self.reach.record() if self.reach is not None else {}),
        }
        _write_json(self.outdir / protocol.RECORD, record)
        self._write_progress(status)

    def _write_progress(self, status: str) -> None:
        _write_json(
            self.outdir / protocol.PROGRESS,
            {"status": status, "steps": len(self.events), "window": self.current.index},
        )


def save_tensors(
    path: Path,
    init: dict[str, torch.Tensor],
    updates: list[dict[str, torch.Tensor]],
    param_rms: list[dict[str, float]],
    grads: list[dict[str, torch.Tensor]] | None = None,
) -> None:
    """TENSORS: what the harness compares, readable without torch (records.Tensors)."""
    eps = {
        key: torch.finfo(p.dtype).eps if p.is_floating_point() else 0.0 for key, p in init.items()
    }
    arrays.write(
        path,
        {"init": [init], "updates": updates, "grads": grads or []},
        float64_bytes,
        {"param_rms": param_rms, "eps": eps},
    )


def _cuda_in_use() -> bool:
    """CUDA initialised by the script (never initialise it ourselves)."""
    return bool(torch.cuda.is_available() and torch.cuda.is_initialized())  # type: ignore[no-untyped-call]


def _device() -> str:
    if _cuda_in_use():
        return f"cuda:{torch.cuda.current_device()}"
    return "cpu"


def _write_json(path: Path, data: object) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, default=repr))
    os.replace(tmp, path)
