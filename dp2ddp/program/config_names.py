"""Module names a program's configuration gives its import calls.

A training repository often picks its trainer, model or dataset by a name in a JSON or YAML
file (haoxiangsnr/Wave-U-Net-for-Speech-Enhancement@64e1aa2: `train.py -C
config/train/run.json`; `initialize_config(config["trainer"])` runs
`importlib.import_module(module_cfg["module"])`, and the file holds
`"trainer": {"module": "trainer.trainer", ...}`). The call's name is opaque to
dynamic_imports.py, so the trainer that wraps the model in DataParallel was not part of the
entry's program: the entry's loaders were left whole, every rank trained on all the data (v4-G).

The name is not guessed from every dotted string of the folder: a file of the project may
configure another program (Wave-U-Net's `config/enhancement/*.json` names the model and
dataset its enhancement script imports, never the trainer). The key path that leads to the
import call is read from the program's code, and only values at that path count:

- the call's argument is a chain of constant keys on a name (`module_cfg["module"]`,
  `cfg.get("module")`);
- when the name is a parameter of the function the call is in, each call of that function
  in the program whose argument there is such a chain puts its keys in front
  (`initialize_config(config["trainer"])`: `trainer`, `module`);
- the documents are the program's JSON string literals (`json.loads('{...}')`) and, when a
  module of the program imports a reader of such files (json, json5, yaml...), the JSON and
  YAML files under the project root;
- a value counts when a document holds it at a path ending with those keys and it names a
  project module (`trainer.trainer`, or `model.unet.UNet`: module `model.unet` defining UNet).

Those modules are imported at the call, as a static name would be (discovery walks again);
the site keeps the names (`DynamicSite.configured`) so that what is still opaque is told
apart (DP094)."""

from __future__ import annotations

import ast
import json
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from dp2ddp.migrate.discovery import SKIPPED_DIRS

if TYPE_CHECKING:
    from dp2ddp.program.discovery import ProgramModule
    from dp2ddp.program.dynamic_imports import DynamicImports, DynamicSite

#: Files read as configuration documents, and how many at most (a data folder of JSON
#: annotations is no configuration).
CONFIG_SUFFIXES = (".json", ".json5", ".yaml", ".yml")
_MAX_FILES = 500
_MAX_BYTES = 1_000_000
_SCAN_LIMIT = 50_000
#: A module that reads configuration files imports one of these.
_READERS = frozenset({"json", "json5", "yaml", "ruamel", "commentjson", "hjson", "omegaconf"})
_JSON5_COMMENT = re.compile(r"^\s*//.*$", re.MULTILINE)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")

#: A key path: the constant keys from a document's value to the import call's name.
Keys = tuple[str, ...]
#: Where a site is: the real path of its module, its line and column.
SiteKey = tuple[str, int, int]
#: What the configuration names at each opaque call: (file, module name) pairs.
Configured = dict[SiteKey, list[tuple[str, str]]]


def configured_imports(dynamic: DynamicImports, modules: Sequence[ProgramModule]) -> Configured:
    """For each opaque import call of the program (`dynamic.sites`) whose name its
    configuration gives (see the module docstring): the (file, module name) pairs it
    imports. Empty when there is none."""
    opaque = [s for s in dynamic.sites if s.opaque and not s.configured]
    if not opaque:
        return {}
    trees = _Trees(modules)
    reals = {m.path: m.real for m in modules}
    paths = {site: _key_paths(site, trees) for site in opaque}
    if not any(paths.values()):
        return {}
    documents = _literal_documents(trees.mentioning("loads"))
    if any(_reads_files(m) for m in modules):
        documents += _file_documents(dynamic.resolver.root, dynamic.memo.configs)
    found: Configured = {}
    for site, keys in paths.items():
        names = {v for document in documents for k in keys for v in _values_at(document, k)}
        imported = [pair for name in sorted(names) for pair in dynamic.named(name)]
        if imported and site.path in reals:
            found[(reals[site.path], site.line, site.col)] = imported
    return found


class _Trees:
    """The program's module trees, parsed when asked (a program of a large tree holds
    thousands of modules; only those that mention what is looked for are parsed)."""

    def __init__(self, modules: Sequence[ProgramModule]) -> None:
        self.modules = {m.path: m for m in modules}
        self.parsed: dict[str, ast.Module] = {}

    def get(self, path: str) -> ast.Module | None:
        module = self.modules.get(path)
        if module is None:
            return None
        if path not in self.parsed:
            self.parsed[path] = module.passing_tree()
        return self.parsed[path]

    def mentioning(self, word: str) -> list[ast.Module]:
        """The trees of the modules whose text holds `word`."""
        found = [self.get(p) for p, m in self.modules.items() if word in m.source.text]
        return [tree for tree in found if tree is not None]


# -- the key paths a program's code leads to an import call by ---------------------------
def _chain(node: ast.expr) -> tuple[str, Keys] | None:
    """`name["a"]["b"]` or `name.get("a")`: (name, ("a", "b")); None for other shapes."""
    keys: list[str] = []
    while True:
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            key = node.slice.value
            node = node.value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            key = node.args[0].value
            node = node.func.value
        else:
            break
        if not isinstance(key, str):
            return None
        keys.append(key)
    if not isinstance(node, ast.Name):
        return None
    return node.id, tuple(reversed(keys))


def _key_paths(site: DynamicSite, trees: _Trees) -> list[Keys]:
    """The key paths that lead to `site`'s name: its argument's own keys, each call of the
    function it is in putting its argument's keys in front where the name is a parameter."""
    try:
        call = ast.parse(site.code, mode="eval").body
    except SyntaxError:
        return []
    if not isinstance(call, ast.Call) or not call.args:
        return []
    chain = _chain(call.args[0])
    tree = trees.get(site.path)
    if chain is None or tree is None:
        return []
    name, keys = chain
    function = _enclosing(tree, site.line)
    if function is None:
        return [keys] if keys else []
    parameters = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    if name not in parameters:
        return [keys] if keys else []
    index = parameters.index(name)
    bound = index > 0 and parameters[0] in ("self", "cls")
    found: list[Keys] = []
    for other in trees.mentioning(function.name):
        for node in ast.walk(other):
            argument = _argument(node, function.name, name, index, bound)
            outer = _chain(argument) if argument is not None else None
            if outer is not None and outer[1] + keys:
                found.append(outer[1] + keys)
    return list(dict.fromkeys(found))


def _enclosing(tree: ast.Module, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The innermost function whose lines hold `line`."""
    best: ast.FunctionDef | ast.AsyncFunctionDef | None = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            end = node.end_lineno or node.lineno
            if node.lineno <= line <= end and (best is None or node.lineno > best.lineno):
                best = node
    return best


def _argument(node: ast.AST, function: str, name: str, index: int, bound: bool) -> ast.expr | None:
    """The argument a call of `function` passes for its parameter `name` (at `index`; one
    less through an attribute when the function is a method)."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Name) and func.id == function:
        position = index
    elif isinstance(func, ast.Attribute) and func.attr == function:
        position = index - 1 if bound else index
    else:
        return None
    for keyword in node.keywords:
        if keyword.arg == name:
            return keyword.value
    if 0 <= position < len(node.args) and not isinstance(node.args[position], ast.Starred):
        return node.args[position]
    return None


# -- the documents ------------------------------------------------------------------------
def _reads_files(module: ProgramModule) -> bool:
    """The module imports a reader of configuration files."""
    return any(
        name.split(".")[0] in _READERS for node in module.imports for name in _imported(node)
    )


def _imported(node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
    elif node.module and not node.level:
        yield node.module


def _literal_documents(trees: Iterable[ast.Module]) -> list[object]:
    """The JSON objects written as string literals in the program (`json.loads('{...}')`)."""
    found: list[object] = []
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value.strip()
                if text[:1] in ("{", "[") and len(text) < _MAX_BYTES:
                    document = _parse_json(text)
                    if isinstance(document, (dict, list)):
                        found.append(document)
    return found


def _file_documents(root: str, memo: dict[str, tuple[object, ...]]) -> list[object]:
    """The JSON and YAML documents under `root` (not in folders dp2ddp never walks), once a
    root."""
    found = memo.get(root)
    if found is None:
        found = memo[root] = tuple(_read_documents(root))
    return list(found)


def _read_documents(root: str) -> Iterator[object]:
    seen = files = 0
    for current, dirs, names in os.walk(root):
        seen += len(dirs) + len(names)
        if seen > _SCAN_LIMIT:
            return
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
        for name in sorted(names):
            if not name.endswith(CONFIG_SUFFIXES):
                continue
            files += 1
            if files > _MAX_FILES:
                return
            document = _read_document(os.path.join(current, name))
            if isinstance(document, (dict, list)):
                yield document


def _read_document(path: str) -> object:
    try:
        if os.path.getsize(path) > _MAX_BYTES:
            return None
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8", "replace")
    except OSError:
        return None
    if path.endswith((".json", ".json5")):
        return _parse_json(text)
    # imported here: only a program with a YAML configuration file needs it; importing yaml
    # cost every run 95 million instructions (its reader's regex builds a 64k-entry
    # character set in Python), 0.5% of folder mode on bench_project's `half`
    import yaml

    try:
        return yaml.safe_load(text)
    except (yaml.YAMLError, ValueError, RecursionError):
        return None


def _parse_json(text: str) -> object:
    """JSON, or JSON5's usual extras (line comments, trailing commas) taken out."""
    for attempt in (text, _TRAILING_COMMA.sub(r"\1", _JSON5_COMMENT.sub("", text))):
        try:
            return json.loads(attempt)
        except (ValueError, RecursionError):
            continue
    return None


def _values_at(document: object, keys: Keys) -> Iterator[str]:
    """The string values of `document` at a path of mapping keys ending with `keys`."""
    stack: list[tuple[object, Keys]] = [(document, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                stack.append((value, (*path, str(key))[-len(keys) :]))
        elif isinstance(node, list):
            stack.extend((item, path) for item in node)
        elif isinstance(node, str) and path == keys and len(node) < 200:
            yield node
