"""Hyperparameter searches run on every rank (v4-C, stop 54).

A search library's study (`optuna.create_study(...)` then `study.optimize(objective)`,
hyperopt's `fmin`, scikit-optimize's `gp_minimize`, ray's `tune.run`) draws each trial's
hyperparameters from a sampler of its own. Under torchrun every rank runs the program, so
every rank runs its own study: each draws its own trials (an unseeded sampler), and a shared
storage (`storage="sqlite:///study.db"`) receives every rank's trials. Where a trial's
values shape the model (`trial.suggest_int("n_layers", 2, 5)`), the ranks build different
models and DistributedDataParallel fails at the wrap ("DDP expects same model across all
ranks"); where they only set a learning rate, the ranks train one model with different
optimizers and DDP averages gradients of steps no process of the original took (kathrinse/
TabSurvey@454b8b2 train.py:111-116: the MLP's width and depth drawn per rank).

The trials are the same on every rank only where the sampler draws alike and nothing the
ranks share records them: optuna with a sampler given a seed (`TPESampler(seed=0)`) and no
storage (a study in memory, one per rank, each seeing the same objective values: the test
figures every rank computes whole); hyperopt given `rstate=`; scikit-optimize given
`random_state=`. Elsewhere DP174 names the call; nothing is changed (running the search in
one process and broadcasting each trial's values, optuna's TorchDistributedTrial, rewrites
the objective: the user's call).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import libcst as cst

from dp2ddp.transforms._support.nodes import code_of, nodes_of, walk

#: qualified name -> (the library's word for it, keywords that make every rank's trials alike)
SEARCHES: dict[str, tuple[str, tuple[str, ...]]] = {
    "optuna.create_study": ("an optuna study", ("sampler",)),
    "optuna.load_study": ("an optuna study", ("sampler",)),
    "optuna.study.create_study": ("an optuna study", ("sampler",)),
    "hyperopt.fmin": ("hyperopt's fmin", ("rstate",)),
    "skopt.gp_minimize": ("scikit-optimize's gp_minimize", ("random_state",)),
    "skopt.forest_minimize": ("scikit-optimize's forest_minimize", ("random_state",)),
    "skopt.gbrt_minimize": ("scikit-optimize's gbrt_minimize", ("random_state",)),
    "skopt.dummy_minimize": ("scikit-optimize's dummy_minimize", ("random_state",)),
    "ray.tune.run": ("ray tune", ()),
    "ray.tune.Tuner": ("ray tune", ()),
}
#: what a module holds where it may start a search (the pass's triggers)
SEARCH = ("create_study", "load_study", "fmin(", "_minimize(", "tune.run", "Tuner(")
#: the last names of SEARCHES, asked before any name is resolved
_TAILS = frozenset(name.rpartition(".")[2] for name in SEARCHES)


def search_calls(
    module: cst.Module, qualified: Callable[[cst.CSTNode], set[str]]
) -> Iterator[tuple[cst.Call, str]]:
    """Each call in `module` that starts a search whose trials may differ between ranks,
    with the detail DP174 gives."""
    for node in nodes_of(module, cst.Call):  # the module's calls, indexed once per tree
        func = node.func
        tail = func.attr.value if isinstance(func, cst.Attribute) else ""
        tail = func.value if isinstance(func, cst.Name) else tail
        if tail not in _TAILS:
            continue
        name = next((q for q in sorted(qualified(func)) if q in SEARCHES), None)
        if name is None:
            continue
        what, alike = SEARCHES[name]
        keywords = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        seeded = bool(alike) and all(_given(keywords.get(k), k) for k in alike)
        storage = keywords.get("storage")
        if storage is not None and not (isinstance(storage, cst.Name) and storage.value == "None"):
            why = f"its storage `{code_of(storage)}` receives every rank's trials"
        elif seeded:
            continue
        else:
            why = "each rank's sampler draws its own trials"
        yield node, f"`{code_of(node.func)}(...)`, {what}, runs on every rank: {why}"


def _given(value: cst.BaseExpression | None, keyword: str) -> bool:
    """A keyword whose value draws alike on every rank: a seed in it (`TPESampler(seed=0)`,
    `np.random.default_rng(0)`, `random_state=0`), not None."""
    if value is None or isinstance(value, cst.Name) and value.value == "None":
        return False
    if keyword == "sampler":
        return any(
            isinstance(n, cst.Arg) and n.keyword is not None and n.keyword.value == "seed"
            for n in walk(value)
        )
    return True
