"""The sinks of run_dir.py's one rule (a value the ranks share), and those another module of
the program gives this one.

A sink is a value the ranks share, computed from or decided by `expr` at `site`; its
per-process reads become rank 0's (run_dir.RunDirValues._share_flows). Two kinds come from
the program's other modules, through ProgramHints:
- an attribute another module makes a path of (`opts.save_dir = ...` here, `os.makedirs(
  opts.save_dir)` there: ProgramHints.path_attributes, path_sinks.py);
- an argument handed to another module's function whose parameter a path it makes, writes
  or reads holds (ProgramHints.path_parameters, path_sinks.path_parameters; stop 49 a4-B,
  zoogzog/chexnet@bbe30b5 Main.py:23-57: `timestampLaunch = timestampDate + '-' +
  timestampTime` from `time.strftime`, handed to `ChexnetTrainer.train(...,
  timestampLaunch, None)`, which saves `'m-' + launchTimestamp + '.pth.tar'` on rank 0, and
  as `pathModel = 'm-' + timestampLaunch + '.pth.tar'` to `ChexnetTrainer.test(...)`, which
  loads it on every rank: rank 1, a second later, looked for a file no rank had saved).
  The call matches an entry by the name it calls (file_paths.called_names) and the
  argument by the parameter's keyword or position (file_paths.argument_elsewhere).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

import libcst as cst

from dp2ddp.transforms._support.nodes import enclosing_class, enclosing_function, nodes_of, walk
from dp2ddp.transforms.rank_zero.file_paths import arguments_elsewhere

if TYPE_CHECKING:
    from dp2ddp.transforms.rank_zero.run_dir import RunDirValues


class Sink(NamedTuple):
    """What the ranks share, computed from or decided by `expr` at `site`; `named` for DP053
    (what, and where the flow ends), `reason` for the change record."""

    expr: cst.BaseExpression
    site: cst.CSTNode
    named: tuple[str, str]
    reason: str
    written: bool = False
    decides: bool = False


def attribute_sinks(rule: RunDirValues) -> list[Sink]:
    """`opts.save_dir = ...` where some module of the program makes or writes a path that
    reads `.save_dir` (ProgramHints.path_attributes, path_sinks.py), and `cfg["exp_name"] =
    ...` (or `{"exp_name": ...}`) where one reads the item `["exp_name"]`, here or through
    copies (path_sinks.attribute_flows: a config dict's clock-named run, stop 62)."""
    named = rule.t.state.hints.path_attributes
    if not named:
        return []
    sinks: list[Sink] = []
    stores: list[tuple[cst.CSTNode, cst.BaseExpression, cst.BaseExpression]] = []
    for assign in nodes_of(rule.facts.module, cst.Assign):
        if len(assign.targets) != 1:
            continue
        target = assign.targets[0].target
        if isinstance(target, cst.Attribute):
            if target.attr.value in named or (
                f"[{target.attr.value}]" in named and _keyed_self(assign, target, rule)
            ):
                stores.append((assign, target, assign.value))
        elif isinstance(target, cst.Subscript) and _key(target.slice) in named:
            stores.append((assign, target, assign.value))
    if any(k.startswith("[") for k in named):
        for literal in nodes_of(rule.facts.module, cst.Dict):
            for element in literal.elements:
                if isinstance(element, cst.DictElement) and _item(element.key) in named:
                    stores.append((element, element.key, element.value))
    for site, held, value in stores:
        if rule.facts.under_guard(site) or rule._in_inserted_helper(site):
            continue
        line = rule.t.input_position(site)[0]
        what = f"`{rule.t.code(held)}` at line {line}, a path the program makes or writes"
        sinks.append(Sink(value, site, (what, rule.t.code(held)), f"it names {what}"))
    return sinks


def _key(slices: Sequence[cst.SubscriptElement]) -> str:
    """`[k]` of a subscript by one string literal, `[=name]` of one by a plain or dotted
    name (a key known at run time: path_sinks._key), else ""."""
    if len(slices) != 1 or not isinstance(slices[0].slice, cst.Index):
        return ""
    key = slices[0].slice.value
    if isinstance(key, (cst.Name, cst.Attribute)) and (spelled := dotted_text(key)):
        return f"[={spelled}]"
    return _item(key)


def dotted_text(node: cst.BaseExpression) -> str:
    """`a.b.c` of a plain or dotted name, else ""."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute) and (root := dotted_text(node.value)):
        return f"{root}.{node.attr.value}"
    return ""


def _item(key: cst.BaseExpression) -> str:
    """`[k]` of a string literal key `"k"`, else ""."""
    if isinstance(key, cst.SimpleString) and isinstance(text := key.evaluated_value, str):
        return f"[{text}]"
    return ""


def _keyed_self(assign: cst.Assign, target: cst.Attribute, rule: RunDirValues) -> bool:
    """`self.log_name = ...` in a class whose `__getitem__` (its own, or a base class's of
    this module) hands on its attributes by key (`return self.__dict__.get(key)`,
    `getattr(self, key)`): another module's `config["log_name"]` reads this value
    (Debatrix/AquulaCam@28b2f97 util.py LoadConfig, stop 57 v1-C)."""
    if not (isinstance(target.value, cst.Name) and target.value.value == "self"):
        return False
    owner = enclosing_class(assign, rule.t)
    classes = {c.name.value: c for c in nodes_of(rule.facts.module, cst.ClassDef)}
    seen: set[str] = set()
    while owner is not None and owner.name.value not in seen:
        seen.add(owner.name.value)
        for method in nodes_of(owner.body, cst.FunctionDef, skip_scopes=True):
            if method.name.value == "__getitem__" and _reads_own_attributes(method):
                return True
        bases = [b.value for b in owner.bases if isinstance(b.value, cst.Name)]
        owner = next((classes[b.value] for b in bases if b.value in classes), None)
    return False


def _reads_own_attributes(method: cst.FunctionDef) -> bool:
    """The method reads `self.__dict__` or calls `getattr(self, ...)`."""
    for node in walk(method):
        if isinstance(node, cst.Attribute) and node.attr.value == "__dict__":
            return True
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Name)
            and node.func.value == "getattr"
            and node.args
            and isinstance(node.args[0].value, cst.Name)
            and node.args[0].value.value == "self"
        ):
            return True
    return False


def argument_sinks(rule: RunDirValues) -> list[Sink]:
    """Each argument this module hands to another module's function whose parameter names
    a path there (ProgramHints.path_parameters; the module docstring). Not one a Dataset's
    per-sample code (analysis/sample_code.py) hands a function that only reads there: as
    for a read in this module (run_dir._path_sinks), the path is this rank's sample's
    (round 16: IDKiro/CBDNet-pytorch's `__getitem__` drew `random.choice(self.clean_fns
    [idx])` and handed it to utils' `read_img`; made rank 0's value, rank 1 loaded rank 0's
    pick for another sample, and waited the store's 60 s where it drew more often)."""
    handed = rule.t.state.hints.path_parameters
    if not handed:
        return []
    made = frozenset(entry for entry in handed if not entry.endswith(":read"))
    sinks: list[Sink] = []
    for call in nodes_of(rule.facts.module, cst.Call):
        per_sample = id(enclosing_function(call, rule.t)) in rule.per_sample
        passed = [
            arg
            for arg in arguments_elsewhere(call, rule.t, made if per_sample else handed)
            if isinstance(arg, cst.BaseExpression)
        ]
        if not passed or rule.facts.under_guard(call) or rule._in_inserted_helper(call):
            continue
        line = rule.t.input_position(call)[0]
        reason = f"it names a path {rule.t.code(call.func)}() saves or reads, called at line {line}"
        for arg in passed:  # each parameter that names a path (file_paths.arguments_elsewhere)
            what = (
                f"the path {rule.t.code(call.func)}() (another module's) makes of "
                f"`{rule.t.code(arg)}` at line {line}"
            )
            sinks.append(Sink(arg, call, (what, rule.t.code(call)), reason))
    return sinks
