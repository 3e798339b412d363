"""DP003's way out: why launching a program's own DDP path with torchrun as written would
still train on the DataParallel path, said with the line that decides it.

DP003 leaves a program with a DistributedDataParallel path of its own unchanged and tells
the user to launch that path with torchrun. Three ways that advice fails, each found in a
public program and named in the warning's detail:

* the path runs only under `if flag:` and every binding of the flag in the module is the
  literal False (bubbliiiing/unet-pytorch@5bcd6b4's `distributed = False`, v1-E of stop 40);
* the flag is an argparse option that is false unless given (`--distributed`,
  `action="store_true"`; `default=False`): torchrun runs the command line as written;
* the program takes the rank from torch.distributed.launch's `--local_rank`, which torchrun
  never passes, and nothing reads LOCAL_RANK (lonePatient/albert_pytorch@46de9ec, v2-B),
  also where another module of the program parses it (ZhengkunTian/OpenTransformer@802750a:
  `run.py`, the DDP path in `otrans/train/trainer.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.transforms._support.nodes import walk
from dp2ddp.transforms.analysis.command_line import declared, launch_argument, spelled

if TYPE_CHECKING:
    from dp2ddp.facts import CommandArgument, CommandLine
    from dp2ddp.transforms._support.base import MigrationTransform


def way_out(transform: MigrationTransform, module: cst.Module, ddp_use: cst.CSTNode) -> str | None:
    """DP003's detail: what keeps the program's DDP path from running under torchrun as
    written, and the way out; None where nothing is found (the code's general text)."""
    own = declared(transform.state.text, transform.context.filename or "")
    told = transform.state.facts.command_line
    return (
        _switched_off(transform, module, ddp_use, own, told)
        or _launch(own, told)
        or _guarded(transform, module, ddp_use, own, told)
    )


def _guarded(
    transform: MigrationTransform,
    module: cst.Module,
    ddp_use: cst.CSTNode,
    own: CommandLine,
    told: CommandLine | None,
) -> str | None:
    """The DDP path under a test decided at run time (cszn/KAIR@fc1732f's
    `if self.opt['dist']:` in model_base.py, set by the project's own distributed entry;
    stop 45 said only "already has a DistributedDataParallel path"): the test and its line,
    and what dp2ddp checked of the path (`_checked`): the way out where nothing is found
    missing, else what is. None where the DDP use stands under no `if`."""
    for outer in view(module).ancestors(ddp_use):
        if not isinstance(outer, cst.If):
            continue
        in_else = outer.orelse is not None and any(ddp_use is n for n in walk(outer.orelse))
        test = transform.code(outer.test)
        when = "false" if in_else else "true"
        line = transform.line_of(outer)
        found, unseen, broken = _checked(transform, module, own, told)
        start = (
            f"its DistributedDataParallel path runs when `{test}` is {when} (line {line}), "
            "which this program decides at run time: nothing is migrated. dp2ddp checked "
            f"that path: {'; '.join(found + unseen + broken)}. "
        )
        if broken:
            return (
                f"{start}Launched with torchrun as written it does not run as DDP: fix that "
                "first, or remove the DDP path and migrate the DataParallel one with dp2ddp"
            )
        needs = [
            need
            for clause, need in (
                ("process group", "starts the process group"),
                ("DistributedSampler", "shards the data"),
            )
            if any(clause in u for u in unseen)
        ]
        elsewhere = f" where the project {' and '.join(needs)} elsewhere" if needs else ""
        return (
            f"{start}Launch it with torchrun with `{test}` {when}{elsewhere} (what decides "
            "that is the program's own: its DDP entry, option or config); with it not so, "
            "every rank runs the DataParallel path on all the data"
        )
    return None


def _checked(
    transform: MigrationTransform, module: cst.Module, own: CommandLine, told: CommandLine | None
) -> tuple[list[str], list[str], list[str]]:
    """What dp2ddp reads of the module's own distributed mode (NVlabs/Taylor_pruning@4b70120
    main.py:381: options its parser never defines and `rank=0` on every process;
    toandaominh1997/EfficientDet.Pytorch@fbe56e5 train.py: the rank from `--rank`, no
    DistributedSampler; stop 50 advised both to launch that mode as it is): where its
    init_process_group takes the rank (torchrun's environment: no `rank=` with the default
    `env://`, or RANK/LOCAL_RANK read; a literal; an option torchrun does not pass), options
    it passes that no parser of the program declares, a DistributedSampler. (found, not
    seen in this module, broken), each a list of clauses."""
    found: list[str] = []
    unseen: list[str] = []
    broken: list[str] = []
    names = transform.qualified_names
    calls = [n for n in walk(module) if isinstance(n, cst.Call)]
    inits = [c for c in calls if names(c.func) & {"torch.distributed.init_process_group"}]
    samplers = [
        c for c in calls if any(n.rpartition(".")[2] == "DistributedSampler" for n in names(c.func))
    ]
    texts = {
        n.evaluated_value
        for n in walk(module)
        if isinstance(n, cst.SimpleString) and isinstance(n.evaluated_value, str)
    }
    env = sorted(texts & {"RANK", "LOCAL_RANK"})
    if env or (told is not None and told.reads_local_rank):
        found.append(f"it reads {' and '.join(env) or 'LOCAL_RANK'}, which torchrun sets")
    arguments = [*own.arguments, *(told.arguments if told is not None else ())]
    dests = {a.dest: a for a in arguments}
    if not inits:
        unseen.append("it starts no process group in this module")
    for init in inits[:1]:
        line = transform.line_of(init)
        keywords = {a.keyword.value: a.value for a in init.args if a.keyword is not None}
        rank, method = keywords.get("rank"), keywords.get("init_method")
        if isinstance(rank, cst.Integer):
            broken.append(
                f"init_process_group (line {line}) passes rank={rank.value} on every process"
            )
        elif isinstance(rank, cst.Attribute) and rank.attr.value in dests and not env:
            broken.append(
                f"init_process_group (line {line}) takes its rank from the "
                f"`{spelled(dests[rank.attr.value])}` option, which torchrun does not pass, "
                "and this module reads neither RANK nor LOCAL_RANK"
            )
        elif rank is None and (
            method is None
            or (isinstance(method, cst.SimpleString) and method.evaluated_value == "env://")
        ):
            found.append(
                f"init_process_group (line {line}) takes its rank from the environment "
                "torchrun sets (env://, no rank=)"
            )
        else:
            found.append(f"it calls init_process_group (line {line})")
        undeclared = sorted(
            {
                transform.code(n)
                for arg in init.args
                for n in walk(arg.value)
                if isinstance(n, cst.Attribute)
                and isinstance(n.value, cst.Name)
                and _parsed(module, n.value.value, dests)
                and n.attr.value not in dests
                and not _stored(module, n.attr.value)
            }
        )
        if undeclared:
            broken.append(
                f"it passes {', '.join(f'`{u}`' for u in undeclared)}, which no option of "
                "the program's parser declares (an AttributeError)"
            )
    if samplers:
        found.append(f"it builds a DistributedSampler (line {transform.line_of(samplers[0])})")
    else:
        unseen.append(
            "it builds no DistributedSampler in this module (a loader of it gives each rank "
            "all the data)"
        )
    return found, unseen, broken


def _parsed(module: cst.Module, name: str, dests: dict[str, CommandArgument]) -> bool:
    """`name` is read with an attribute some option of the parser declares (`args`)."""
    return any(
        isinstance(n, cst.Attribute)
        and isinstance(n.value, cst.Name)
        and n.value.value == name
        and n.attr.value in dests
        for n in walk(module)
    )


def _switched_off(
    transform: MigrationTransform,
    module: cst.Module,
    ddp_use: cst.CSTNode,
    own: CommandLine,
    told: CommandLine | None,
) -> str | None:
    """The DDP path runs only when a flag is true, and the flag is a literal False or an
    argparse option off unless given."""
    flow = view(module)
    for outer in flow.ancestors(ddp_use):
        if not isinstance(outer, cst.If):
            continue
        test, negated = outer.test, False
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, negated = test.expression, True
        in_else = outer.orelse is not None and any(ddp_use is n for n in walk(outer.orelse))
        if in_else != negated:
            continue  # the DDP path is in the branch taken when the flag is false
        if isinstance(test, cst.Name):
            found = flow.definitions(test)
            if found and all(
                d.kind == "assign" and isinstance(d.value, cst.Name) and d.value.value == "False"
                for d in found
            ):
                line = transform.line_of(found[0].statement)
                name = test.value
                return (
                    f"its DistributedDataParallel path runs only when {name} is true, and "
                    f"{name} = False (line {line}): launched with torchrun as it is, every "
                    f"rank runs the DataParallel path on all the data; set {name} = True "
                    "first"
                )
        elif isinstance(test, cst.Attribute) and isinstance(test.value, cst.Name):
            option = _off_option(test.attr.value, own, told)
            if option is not None and not _stored(module, test.attr.value):
                flag = spelled(option).split("/")[-1]
                where = _where(option, transform)
                return (
                    f"its DistributedDataParallel path runs only when "
                    f"{transform.code(test)} is true, set by the `{spelled(option)}` option "
                    f"({where}), which is false unless given: launched with torchrun as "
                    "written, every rank runs the DataParallel path on all the data; pass "
                    f"`{flag}` after the script on torchrun's command line (and see that "
                    "the path takes each process's rank from LOCAL_RANK)"
                )
    return None


def _off_option(dest: str, own: CommandLine, told: CommandLine | None) -> CommandArgument | None:
    """The option (of this module, else of the program) that sets `dest`, where every
    option setting it is off unless given."""
    for line in (own, told):
        if line is None:
            continue
        found = [a for a in line.arguments if a.dest == dest]
        if found:
            return found[0] if all(a.off for a in found) else None
    return None


def _stored(module: cst.Module, attribute: str) -> bool:
    """The module assigns `<x>.attribute` itself (`args.distributed = world_size > 1`,
    pytorch/examples' imagenet): the option is not all that decides."""
    for node in walk(module):
        targets: list[cst.BaseExpression] = []
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            targets = [node.target]
        for target in targets:
            for part in walk(target):
                if isinstance(part, cst.Attribute) and part.attr.value == attribute:
                    return True
    return False


def _where(argument: CommandArgument, transform: MigrationTransform) -> str:
    if argument.path == (transform.context.filename or ""):
        return f"line {transform.state.line_map(argument.line)}"
    return f"{argument.path}:{argument.line}"


def _launch(own: CommandLine, told: CommandLine | None) -> str | None:
    """torch.distributed.launch's `--local_rank`, declared here or in another module of
    the program, where no module reads LOCAL_RANK."""
    if own.reads_local_rank or (told is not None and told.reads_local_rank):
        return None  # the rank is read from torchrun's environment somewhere
    found = launch_argument(own)
    if found is not None:
        return (
            f"its DDP path is chosen by the `{found.options[-1]}` argument of "
            "torch.distributed.launch, which torchrun does not pass (it sets LOCAL_RANK in "
            "the environment): launched with torchrun as written, every process keeps the "
            "argument's default and trains the whole program on the DataParallel path. "
            'Default the argument to `int(os.environ.get("LOCAL_RANK", <its default>))` '
            "before launching that path"
        )
    found = launch_argument(told) if told is not None else None
    if found is None:
        return None
    return (
        f"the program takes the rank from torch.distributed.launch's `{spelled(found)}` "
        f"argument, parsed in {found.path}:{found.line}, which torchrun does not pass (it "
        "sets LOCAL_RANK in the environment): launched with torchrun as written, every "
        "process keeps the argument's default, so the DDP path cannot tell the processes "
        'apart. Default the argument to `int(os.environ.get("LOCAL_RANK", <its default>))` '
        f"in {found.path} before launching that path"
    )
