"""The names whose values the uniformity proof (uniformity.py) takes as the same on every
rank when their inputs are: calls and methods that compute from their arguments only, and
what the inserted header defines."""

from __future__ import annotations

from typing import Final

#: Calls whose result depends only on their (uniform) arguments.
UNIFORM_CALLS: Final = (
    frozenset(
        f"builtins.{name}"
        for name in (
            "abs all any bool dict divmod enumerate float format int isinstance len list max min "
            "range reversed round set sorted str sum tuple zip getattr hasattr"
        ).split()
    )
    | frozenset(
        {
            "os.path.join",
            "os.path.basename",
            "os.path.dirname",
            "os.path.splitext",
            "os.environ.get",
            "argparse.ArgumentParser",
            "json.loads",
            "torch.load",
            "torch.serialization.load",
            "torch.distributed.get_world_size",
            "torch.distributed.is_initialized",
            "torch.cuda.is_available",
            "torch.cuda.device_count",
            "torch.from_numpy",
            "torch.utils.data.TensorDataset",
            "torch.utils.data.dataset.TensorDataset",
        }
    )
    | frozenset(f"numpy.{name}" for name in "mean average median sum array asarray".split())
)
UNIFORM_PREFIXES: Final = ("math.",)
#: Methods that compute from their receiver and arguments only.
UNIFORM_METHODS: Final = frozenset(
    (
        "item tolist float int double long mean sum max min abs round sqrt exp log "
        "format join split strip lower upper replace startswith endswith get keys values "
        "items copy index count parse_args parse_known_args astype numpy detach cpu clone "
        "reshape view squeeze unsqueeze flatten"
    ).split()
)
#: What the inserted header defines, the same on every rank.
UNIFORM_GLOBALS: Final = frozenset({"WORLD_SIZE", "True", "False", "None", "__name__"})
