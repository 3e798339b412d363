"""Program hints for the rank-0 pass: which project functions are pure, which are unused
(dp2ddp/transforms/rank_zero/program_hints.py)."""

from __future__ import annotations

import ast
from pathlib import Path

from dp2ddp.program.discovery import discover_program
from dp2ddp.transforms._support.ast_nodes import import_table, resolved_name
from dp2ddp.transforms.analysis.printing import printer_names, printing_functions
from dp2ddp.transforms.rank_zero.path_sinks import path_attributes
from dp2ddp.transforms.rank_zero.program_hints import (
    program_hints,
    pure_functions,
    unused_functions,
)

CONFIG = """
import math
from torch import optim
import numpy as np


def learning_rate(init, epoch):
    factor = 0
    if epoch > 60:
        factor = 1
    return init * math.pow(0.2, factor)


def get_hms(seconds):
    m, s = divmod(seconds, 60)
    h, m = divmod(m, 60)
    return h, m, s


def doubled(init, epoch):
    return learning_rate(init, epoch) * 2


def set_lr(optimizer, lr):
    for group in optimizer.param_groups:
        group["lr"] = lr
    return lr


def step(scheduler):
    scheduler.step()
    return scheduler.get_last_lr()


def counter():
    global COUNT
    COUNT = 1


def draw():
    return np.random.rand()


def loops(n):
    return loops(n - 1)
"""


def test_pure_functions_only_compute_from_their_arguments() -> None:
    pure = pure_functions([("config", ast.parse(CONFIG), False)])
    assert pure == {"config.learning_rate", "config.get_hms", "config.doubled"}


def test_functions_of_the_migrated_module_are_named_plainly() -> None:
    assert pure_functions([("", ast.parse(CONFIG), False)]) >= {"get_hms", "doubled"}


def test_relative_imports_resolve_to_project_functions() -> None:
    helpers = ast.parse("def fmt(x):\n    return '%.2f' % x\n")
    user = ast.parse("from .helpers import fmt\n\ndef show(x):\n    return fmt(x) + '!'\n")
    pure = pure_functions([("pkg.helpers", helpers, False), ("pkg.user", user, False)])
    assert pure == {"pkg.helpers.fmt", "pkg.user.show"}


def test_a_packages_star_reexport_names_public_pure_functions_it_does_not_bind() -> None:
    util = ast.parse(
        "def summary(m):\n    return str(m)\n\ndef _hidden(m):\n    return m\n\n"
        "def own(m):\n    return m\n"
    )
    init = ast.parse(
        "from .util import *\nfrom .util import summary as brief\n\ndef own(m):\n    m.append(1)\n"
    )
    pure = pure_functions([("lib.util", util, False), ("lib", init, True)])
    assert pure == {
        "lib.util.summary",
        "lib.util._hidden",
        "lib.util.own",
        "lib.summary",
        "lib.brief",
    }


def test_stores_into_the_functions_own_containers_keep_it_pure() -> None:
    source = (
        "def summary(metrics):\n    out = {}\n    parts = []\n"
        "    for k, v in metrics.items():\n        if k.isdigit():\n            continue\n"
        "        out[k] = round(v, 3)\n    parts.append(str(out.pop('score')))\n"
        "    return ' | '.join(parts)\n\n"
        "def into_argument(d):\n    d['x'] = 1\n    return d\n\n"
        "def rebound(d):\n    out = {}\n    out = d\n    out['x'] = 1\n\n"
        "def aliased(d):\n    out = {}\n    alias = out\n    alias.append(1)\n\n"
        "def nested(d):\n    out = {'a': d}\n    out['a']['b'] = 1\n"
    )
    assert pure_functions([("m", ast.parse(source), False)]) == {"m.summary"}


def test_unused_functions_follow_star_imports_and_shadowing() -> None:
    entry = ast.parse("from models import *\n\ndef test(epoch):\n    pass\n\ntest(1)\nbuild()\n")
    models = ast.parse(
        "def build():\n    pass\n\ndef test():\n    print(1)\n\n"
        "def helper():\n    return 1\n\nx = helper()\n\n"
        "if __name__ == '__main__':\n    test()\n"
    )
    assert unused_functions([entry, models]) == [frozenset(), frozenset({"test"})]


def test_the_entrys_own_functions_are_never_unused(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(
        "import lib\n\ndef main():\n    lib.run()\n\n"
        "if __name__ == '__main__':\n    main()\n    lib.report()\n"
    )
    (tmp_path / "lib.py").write_text(
        "def run():\n    pass\n\ndef report():\n    print(2)\n\ndef demo():\n    print(1)\n\n"
        "if __name__ == '__main__':\n    demo()\n"
    )
    program = discover_program(str(tmp_path / "train.py"))
    hints = program_hints(program)
    entry, lib = (hints[m.real] for m in program.modules)
    assert (entry.unused, entry.imported, entry.logs) == (frozenset(), False, False)
    assert (lib.unused, lib.imported) == (frozenset({"demo"}), True)
    # each module's own printing functions, told to its data pass (DP030) once
    assert entry.printing == frozenset()
    assert lib.printing == frozenset({("", "report"), ("", "demo")})


def test_path_attributes_name_what_a_module_makes_writes_or_copies() -> None:
    """path_sinks.path_attributes reads side_effects' tables of writers (np.savetxt is one),
    both ends of a copy, a SummaryWriter's log_dir, torch.save's file and open for writing;
    a read names no sink."""
    tree = ast.parse(
        "import numpy as np, os, shutil, torch\n"
        "from torch.utils.tensorboard import SummaryWriter\n"
        "os.makedirs(opts.save_dir)\n"
        "np.savetxt(opts.table, x)\n"
        "shutil.copy(opts.config, opts.copy_dir)\n"
        "SummaryWriter(log_dir=opts.logs)\n"
        "torch.save(m, opts.ckpt)\n"
        "open(opts.report, 'w')\n"
        "open(opts.data).read()\n"
        "np.load(opts.inputs)\n"
    )
    aliases = {"np": "numpy", "SummaryWriter": "torch.utils.tensorboard.SummaryWriter"}

    def resolved(func: ast.expr) -> str:
        parts = ast.unparse(func).split(".")
        return ".".join([aliases.get(parts[0], parts[0]), *parts[1:]])

    assert path_attributes(tree, resolved) == {
        "save_dir",
        "table",
        "config",
        "copy_dir",
        "logs",
        "ckpt",
        "report",
    }


PRINTING = """
import logging as log
from tqdm import tqdm


def report(x):
    log.info(x)


def train():
    def step(loss):
        tqdm.write(str(loss))

    step(1)


def quiet(x):
    return x


class Stream:
    def cprint(self, text):
        self.f.write(text)

    def epoch(self, text):
        self.cprint(text)

    def __call__(self, text):
        self.epoch(text)

    def cprint_not(self, text):
        cprint(text)
"""


def test_printing_functions_of_a_module_and_the_names_other_modules_call() -> None:
    """analysis/printing.py, the one walk the program model and the data pass's DP030 share:
    nested functions and `self.` methods count; other modules call only the top-level ones
    (and `Cls.__call__` for an instance called)."""
    tree = ast.parse(PRINTING)
    found = printing_functions(tree, import_table(tree, "", False))
    assert found == {
        ("", "report"),
        ("", "step"),
        ("", "train"),
        ("Stream", "cprint"),
        ("Stream", "epoch"),
        ("Stream", "__call__"),
    }
    assert printer_names(tree, found) == {
        "report",
        "train",
        "cprint",
        "epoch",
        "__call__",
        "Stream.__call__",
    }


def test_set_returns_proved_maybe_and_untyped() -> None:
    """Stop 53 s1: functions and methods returning a set of strings (rank_zero/set_returns.py):
    proved through names, `.add`, a method of the module; "?" where another path is a
    library call's value; nothing for a `pickle.load` alone; "~" (stop 54 s3) for a set of
    elements not typed; nothing for a set of numbers; a csv reader's items are strings."""
    from dp2ddp.transforms.rank_zero.set_returns import set_returns

    tree = ast.parse(
        "import pickle\n"
        "class P:\n"
        "    def labels(self, lines):\n"
        "        found = set()\n"
        "        for line in lines:\n"
        "            found.add(line.strip().split('\\t')[1])\n"
        "        return found\n"
        "    def again(self, lines):\n"
        "        return self.labels(lines)\n"
        "    def cached(self, f, lines):\n"
        "        if f:\n"
        "            out = pickle.load(f)\n"
        "        else:\n"
        "            out = {'O', 'B'}\n"
        "        return out\n"
        "    def loaded(self, f):\n"
        "        return pickle.load(f)\n"
        "def ids(xs):\n"
        "    return set(xs)\n"
        "def made():\n"
        "    return P().labels([])\n"
        "def numbers(lines):\n"
        "    return {(len(x), int(x[0])) for x in lines}\n"
        "def rows(f):\n"
        "    return set(row[1] for row in csv.reader(f))\n"
    )
    assert set_returns(tree) == {"P.labels", "P.again", "P.cached?", "made", "ids~", "rows"}


def test_set_returns_through_other_modules() -> None:
    """Stop 54 s3: a function returning another module's set of strings is proved through
    the modules' facts (set_chains.py), to 3 modules; further, "+"; "?" carried."""
    from dp2ddp.transforms.rank_zero.set_returns import set_returns

    tree = ast.parse(
        "import label_io\nfrom label_io import read_set\n"
        "def direct():\n    return label_io.read_set([])\n"
        "def bound():\n    tags = read_set([])\n    return tags\n"
        "def made():\n    return label_io.Reader().labels()\n"
        "def maybe():\n    return label_io.cached()\n"
        "def library():\n    return json.load(f)\n"
    )
    known = {
        "label_io.read_set": "str",
        "label_io.Reader.labels": "far",
        "label_io.cached": "maybe",
    }

    table = import_table(tree, "utils", False)

    def linked(func: ast.expr) -> str:
        target = resolved_name(func, table)
        if not target and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):
            target = f"{resolved_name(func.value.func, table)}.{func.attr}"
        return known.get(target, "")

    assert set_returns(tree, linked) == {"direct", "bound", "made+", "maybe?"}


def test_program_set_returns_bounded() -> None:
    """Stop 54 s3: the chain label_io <- utils <- mid <- deep (set_chains.py): 3 modules'
    functions proved, the fourth "+"; each module naming one read once; the entry's not
    listed."""
    from types import SimpleNamespace

    from dp2ddp.transforms.rank_zero.set_chains import program_set_returns
    from dp2ddp.transforms.rank_zero.set_returns import set_returns

    texts = {
        "train": "import deep\nprint(deep.labels())\n",
        "label_io": "def read_set(lines):\n    return {x.strip() for x in lines}\n",
        "utils": "import label_io\ndef get():\n    return label_io.read_set([])\n",
        "mid": "from utils import get\ndef labels():\n    return get()\n",
        "deep": "import mid\ndef labels():\n    return mid.labels()\n",
    }
    read: list[str] = []

    def module(name: str, text: str) -> SimpleNamespace:
        def tree() -> ast.Module:
            read.append(name)
            return ast.parse(text)

        source = SimpleNamespace(text=text)
        return SimpleNamespace(name=name, is_package=False, passing_tree=tree, source=source)

    modules = [module(n, t) for n, t in texts.items()]
    own = [set_returns(ast.parse(t)) for t in texts.values()]
    found = program_set_returns(modules, own)  # type: ignore[arg-type]
    assert found == {"label_io.read_set", "utils.get", "mid.labels", "deep.labels+"}
    assert sorted(read) == ["deep", "label_io", "mid", "utils"]  # once each


def test_handed_streams_every_caller() -> None:
    """Stop 53 s1: a writer's parameter every other module's call hands a standard stream is
    `|s`; one a call hands a file is `|o` (rank_zero/handed_streams.py)."""
    from dp2ddp.transforms.rank_zero.handed_streams import handed_streams, stream_writers

    writer = ast.parse(
        "def report(c, out):\n    out.write(str(c))\n"
        "def summary(c, *, dest=None):\n    dest.write(str(c))\n"
    )
    found = stream_writers(writer)
    assert found == {"report|1|out", "summary|-1|dest"}
    entry = ast.parse(
        "import sys\nimport scoring\nfrom scoring import summary\n"
        "scoring.report(1, sys.stdout)\nscoring.report(2, out=sys.stderr)\n"
        "summary(3, dest=open('x', 'w'))\n"
    )
    streams = handed_streams({"scoring": found}, [("train", entry, False)])
    assert streams == {"scoring": frozenset({"report|out|s", "summary|dest|o"})}


def test_handed_streams_of_methods_and_kept_streams() -> None:
    """Stop 54 s3: a method's stream parameter (`scorer.report(sys.stdout)` of `scorer =
    Scorer()`, `Scorer().report(...)`) and a stream a class keeps from its `__init__`
    (`Logger(sys.stdout)`, `self.stream.write`): `Class.method|...`, `Class.__init__|...`;
    an attribute stored twice is not kept."""
    from dp2ddp.transforms.rank_zero.handed_streams import handed_streams, stream_writers

    writer = ast.parse(
        "class Scorer:\n"
        "    def report(self, out):\n        out.write('x')\n"
        "class Logger:\n"
        "    def __init__(self, stream, prefix=''):\n        self.stream = stream\n"
        "    def write(self, m):\n        self.stream.write(m)\n"
        "class Moved:\n"
        "    def __init__(self, stream):\n        self.stream = stream\n"
        "    def to(self, f):\n        self.stream = f\n"
        "    def write(self, m):\n        self.stream.write(m)\n"
    )
    found = stream_writers(writer)
    assert found == {"Scorer.report|0|out", "Logger.__init__|0|stream"}
    entry = ast.parse(
        "import sys\nfrom scoring import Logger, Scorer\n"
        "scorer = Scorer()\nscorer.report(sys.stdout)\nScorer().report(out=sys.stderr)\n"
        "log = Logger(sys.stdout, prefix='a')\nLogger(open('x', 'w'))\n"
    )
    streams = handed_streams({"scoring": found}, [("train", entry, False)])
    assert streams == {"scoring": frozenset({"Scorer.report|out|s", "Logger.__init__|stream|o"})}
