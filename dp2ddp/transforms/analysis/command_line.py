"""The command-line arguments a module declares with argparse (`add_argument`), read with
`ast`: the one reading of DP003's two questions about a program's own DDP path.

* Is the path switched off by a flag's default? `parser.add_argument('--distributed',
  action='store_true')` and `if args.distributed: ... DistributedDataParallel` (class v1-E
  of stop 40, its argparse form): launched with torchrun as written, every process takes
  the DataParallel branch on all the data.
* Does the program take the rank from torch.distributed.launch's `--local_rank` argument,
  which torchrun never passes (class v2-B)? Also where it is parsed in another module than
  the wrap's (ZhengkunTian/OpenTransformer@802750a: `run.py` parses `-r/--local_rank`, the
  trainer in `otrans/train/trainer.py` takes its DDP path with it).

A single file reads its own module; in program mode the program model reads every module
once (program/told.py) and tells the wrap's module (ProgramFacts.command_line).
"""

from __future__ import annotations

import ast

from dp2ddp.facts import CommandArgument, CommandLine

#: The argument torch.distributed.launch passed each process its GPU by (`--local-rank` in
#: torch 2): torchrun passes none; it sets LOCAL_RANK (and RANK, WORLD_SIZE) instead.
LAUNCH_ARGUMENTS = frozenset({"--local_rank", "--local-rank"})


def declared(source: str, path: str) -> CommandLine:
    """The arguments `source` declares, and whether it names LOCAL_RANK (reads the rank
    torchrun sets). Empty for a module that does not parse."""
    if "add_argument" not in source and "LOCAL_RANK" not in source:
        return CommandLine()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return CommandLine()
    arguments: list[CommandArgument] = []
    reads = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value == "LOCAL_RANK":
            reads = True
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "add_argument"
        ):
            found = _argument(node, path)
            if found is not None:
                arguments.append(found)
    return CommandLine(tuple(arguments), reads)


def _argument(call: ast.Call, path: str) -> CommandArgument | None:
    options = tuple(
        a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
    )
    if not options or not all(o.startswith("-") for o in options):
        return None  # a positional argument: given on every command line
    keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
    dest = _constant(keywords.get("dest"))
    if not isinstance(dest, str):
        long = [o for o in options if o.startswith("--")]
        dest = (long[0] if long else options[0]).lstrip("-").replace("-", "_")
    action = _constant(keywords.get("action"))
    if "default" in keywords:
        default = keywords["default"]
        # False or None, not 0: a valued option (`--gpus 0`) is no switch to pass
        off = isinstance(default, ast.Constant) and (
            default.value is False or default.value is None
        )
        off = off and action != "store_false"
    else:
        off = action == "store_true"
    number = _constant(keywords.get("default"))
    value = number if isinstance(number, (int, float)) and not isinstance(number, bool) else None
    return CommandArgument(options, dest, off, path, call.lineno, value)


def _constant(node: ast.expr | None) -> object:
    return node.value if isinstance(node, ast.Constant) else None


def spelled(argument: CommandArgument) -> str:
    """`-r/--local_rank`, as the user types it."""
    return "/".join(argument.options)


def launch_argument(line: CommandLine) -> CommandArgument | None:
    """torch.distributed.launch's argument, where nothing reads LOCAL_RANK."""
    if line.reads_local_rank:
        return None
    return next((a for a in line.arguments if set(a.options) & LAUNCH_ARGUMENTS), None)
