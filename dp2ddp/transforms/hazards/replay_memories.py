"""Experience gathered per rank and sampled for training (stop 55 v4-F): said, not proved.

A reinforcement-learning program steps its environment(s) in its loop, appends each
transition to a replay memory (`memory.push(s, a, r, s2, done)`, `buffer.append(...)`)
and samples training batches from that memory (`memory.sample(n)`, `random.sample(
memory, n)`). Under DataParallel one process gathered one memory; under torchrun every
rank runs the loop, steps its own environments (their clocks, their unseeded action draws
such as an epsilon-greedy `random.random()`) and fills its own memory, so the same sampled
indices pick other transitions on each rank: the update averages several actors' data.

The class, by what the code does and not by names of libraries: a container (one spelling,
`memory` or `self.replay_buffer`) filled by a call in a loop and sampled by a draw (its own
`sample` method, or a draw over it or over its length) in a module that trains. Proving
the filling alike on every rank (every environment and draw seeded alike, no clock) is not
attempted: each such memory is said (DP200), never silently kept per rank.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import libcst as cst

from dp2ddp.transforms._support.nodes import calls_under, code_of, name_of, nodes_of
from dp2ddp.transforms.analysis.training import function_trains, trains_call, trains_through

#: Methods that add one item (or several) to a container.
FILL_METHODS = frozenset(
    {"append", "appendleft", "extend", "insert", "push", "add", "put", "store", "remember"}
)
#: Draws that pick items of a sequence (first argument) or indices below a count.
PICKING_DRAWS = frozenset(
    {
        "random.sample",
        "random.choices",
        "random.choice",
        "random.randint",
        "random.randrange",
        "numpy.random.choice",
        "numpy.random.randint",
        "torch.randint",
        "torch.randperm",
    }
)


def per_rank_memories(
    module: cst.Module,
    qualified_names: Callable[[cst.CSTNode], set[str]],
    position: Callable[[cst.CSTNode], tuple[int, int]],
    fills: dict[int, int] | None = None,
) -> Iterator[tuple[cst.CSTNode, str, str]]:
    """Each draw from a container the program fills in a loop (the module docstring), with
    DP200 and a detail naming the fill's line and the draw's; nothing in a module that
    runs no backward pass or optimizer step. `fills` gets each named fill's line -> the
    line of the function holding it (MigrationState.memory_fills, for shared_fill)."""
    calls = list(nodes_of(module, cst.Call))
    if not any(trains_call(call, qualified_names) for call in calls):
        return
    # the draws first: most modules sample no container, and following the training
    # calls through the module's functions costs far more than reading each call once
    sampled: dict[str, cst.Call] = {}
    for call in calls:
        key = _sampled(call, qualified_names)
        if key is not None:
            sampled.setdefault(key, call)
    if not sampled:
        return
    fills_of: dict[str, cst.Call] = {}
    for call in _training_calls(module, qualified_names):
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in FILL_METHODS and call.args:
            fills_of.setdefault(code_of(func.value), call)
    for key, call in sampled.items():
        if key not in fills_of:
            continue
        fill = fills_of[key]
        if fills is not None:
            owner = next(
                (f for f in reversed(nodes_of(module, cst.FunctionDef)) if _holds(f, fill)), None
            )
            fills[position(fill)[0]] = position(owner)[0] if owner is not None else 0
        detail = (
            f"`{key}` is filled while the program trains at line {position(fill)[0]} "
            f"(`{code_of(fill.func)}(...)`) and sampled at line {position(call)[0]} "
            f"(`{code_of(call.func)}(...)`): each rank fills and samples its own copy, "
            "with what its own environments and draws gave it"
        )
        yield call, "DP200", detail


#: DP200's detail, as per_rank_memories writes it: the fill's line, and what follows it.
_FILLED = re.compile(
    r"filled while the program trains at line (\d+) (\(`[^`]*`\)) and sampled at line (\d+) "
    r"(\(`[^`]*`\)): each rank fills and samples its own copy, with what its own "
    r"environments and draws gave it"
)


def _holds(function: cst.FunctionDef, node: cst.CSTNode) -> bool:
    return any(n is node for n in calls_under(function.body, skip_scopes=True))


def shared_fill(message: str, spans: list[tuple[int, int, int]], fills: dict[int, int]) -> str:
    """DP200's text where the migration put the fill in `with ddp_same_random():` (the
    shared_draws pass: the episode's draws decide what the model trains on; `spans`, the
    user's lines of the statements it wrapped, MigrationState.shared_spans): every rank
    fills the memory alike, with rank 0's draws; only the sampling is each rank's own
    (round 13 v1-C, ItsNotSoftware/utt-ai-arena@0c99953: the text said each rank fills
    its own copy)."""
    found = _FILLED.search(message)
    if found is None:
        return message
    line, fill, at, draw = found.groups()
    owner = fills.get(int(line), -1)
    if any(a <= int(line) <= b for a, b, _ in spans):
        filled = (
            f"filled at line {line} {fill} alike on every rank (the migration runs it in "
            "`with ddp_same_random():`, rank 0's draws)"
        )
    elif owner > 0 and any(o == owner for _, _, o in spans):
        first = min(a for a, _, o in spans if o == owner)
        filled = (
            f"filled at line {line} {fill} from what the function's `with ddp_same_random():` "
            f"block at line {first} draws (rank 0's draws on every rank)"
        )
    else:
        return message
    text = (
        f"{filled} and sampled at line {at} {draw} by each rank with its own draws, outside "
        "the block: each rank cuts its share of the batch from another sample of the memory"
    )
    return message[: found.start()] + text + message[found.end() :]


def _training_calls(
    module: cst.Module, qualified_names: Callable[[cst.CSTNode], set[str]]
) -> list[cst.Call]:
    """The calls that run while the program trains: in the body of a loop that trains
    (itself or through the functions it calls), and in the functions such loops call or that
    train themselves (`agent.step(...)` filling and learning), followed by name to any
    depth: a name shared by two functions takes both (more is said, never less)."""
    functions: dict[str, list[cst.FunctionDef]] = {}
    for function in nodes_of(module, cst.FunctionDef):
        functions.setdefault(function.name.value, []).append(function)

    def runs(call: cst.Call) -> list[cst.FunctionDef]:
        return functions.get(name_of(call.func), [])

    found: list[cst.Call] = []
    training: list[cst.For | cst.While] = []
    quiet: list[cst.For | cst.While] = []
    todo: list[cst.FunctionDef] = []
    for loop in nodes_of(module, (cst.For, cst.While)):
        if trains_through(loop, qualified_names, runs):
            training.append(loop)
            found += calls_under(loop.body, skip_scopes=True)
            todo += [f for call in calls_under(loop.body, skip_scopes=True) for f in runs(call)]
        else:
            quiet.append(loop)
    seen: set[int] = set()

    def follow(own: list[cst.Call]) -> None:
        found.extend(own)
        todo.extend(f for call in own for f in runs(call))
        while todo:
            function = todo.pop()
            if id(function) not in seen:
                seen.add(id(function))
                calls = calls_under(function.body, skip_scopes=True)
                found.extend(calls)
                todo.extend(f for call in calls for f in runs(call))

    follow([])  # the functions the training loops run: every call of theirs, each time
    for group in functions.values():
        for function in group:
            if id(function) in seen or not function_trains(function, qualified_names):
                continue
            seen.add(id(function))
            follow(_while_training(function, training, quiet))
    return found


def _while_training(
    function: cst.FunctionDef,
    training: list[cst.For | cst.While],
    quiet: list[cst.For | cst.While],
) -> list[cst.Call]:
    """The calls of a function that trains itself that run while it trains: not those of
    its loops that train nothing (a memory filled before training: `for i in range(16):
    memory.push(...)`, stop 60's leftover), nor, where the training runs in a loop of its
    own, the calls before that loop (the driver's set-up). A step helper training without a
    loop of its own runs each call at every step."""
    own = calls_under(function.body, skip_scopes=True)
    inside = {id(loop) for loop in nodes_of(function.body, (cst.For, cst.While), skip_scopes=True)}
    set_up = {
        id(call)
        for loop in quiet
        if id(loop) in inside
        for call in calls_under(loop.body, skip_scopes=True)
    }
    mine = [loop for loop in training if id(loop) in inside]
    if mine:
        first = calls_under(mine[0].body, skip_scopes=True)
        start = next((i for i, c in enumerate(own) if first and c is first[0]), len(own))
        set_up |= {id(c) for c in own[:start]}
    looped = {id(c) for loop in mine for c in calls_under(loop.body, skip_scopes=True)}
    return [c for c in own if id(c) in looped or id(c) not in set_up]


def _sampled(call: cst.Call, qualified_names: Callable[[cst.CSTNode], set[str]]) -> str | None:
    """The spelling of the container `call` draws from: `memory.sample(n)`, or a picking
    draw whose first argument is the container or its `len(...)`."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "sample":
        return code_of(func.value)
    if not call.args or not (qualified_names(func) & PICKING_DRAWS):
        return None
    first = call.args[0].value
    if (
        isinstance(first, cst.Call)
        and isinstance(first.func, cst.Name)
        and first.func.value == "len"
        and first.args
    ):
        first = first.args[0].value
    if isinstance(first, (cst.Name, cst.Attribute)):
        return code_of(first)
    return None
