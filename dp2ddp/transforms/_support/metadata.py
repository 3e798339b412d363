"""Cheaper stand-ins for the libcst metadata machinery each pass would otherwise pay for.

Every pass used to deep-copy the tree and resolve parent, position and qualified-name
metadata for all of it up front; that was three quarters of a migration's time. Here:
`PassMetadata` resolves providers on first use, builds the parent map by one plain walk
(which also proves no node object occurs twice, the only reason libcst copies), answers
qualified names without libcst's scope analysis where that is exact (`QualifiedNames`),
and computes positions with a lighter code generation (`positions`, in libcst_private:
it relies on libcst's codegen hooks). tests/test_metadata.py compares all of these with
libcst's own.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import libcst as cst
from libcst.metadata import (
    BaseMetadataProvider,
    MetadataWrapper,
    ParentNodeProvider,
    PositionProvider,
    ProviderT,
    ScopeProvider,
)

from dp2ddp.facts import Reexports
from dp2ddp.flow.children import _fields, parent_map
from dp2ddp.transforms._support.libcst_private import positions
from dp2ddp.transforms._support.qualified import QualifiedNames

#: Libraries' public names a star import binds (their `__all__`), for those the passes
#: match by qualified name: a call through `from tqdm import *` is matched as a named one.
STAR_EXPORTS: Mapping[str, tuple[str, ...]] = {
    "tqdm": ("tqdm", "trange"),
    "tqdm.auto": ("tqdm", "trange"),
    "tqdm.autonotebook": ("tqdm", "trange"),
    "tqdm.notebook": ("tqdm", "trange"),
    "tqdm.std": ("tqdm", "trange"),
}


#: Modules a star import of a module with unknown exports may bind under their own name
#: (that module ran `import torch`): an unbound `torch.save` is torch's.
STAR_MODULES: tuple[str, ...] = ("torch", "os", "shutil", "pickle", "json")


def code_of_dotted(node: cst.Attribute | cst.Name) -> str:
    """`a.b.c` of a dotted module name."""
    if isinstance(node, cst.Name):
        return node.value
    assert isinstance(node.value, (cst.Attribute, cst.Name))
    return f"{code_of_dotted(node.value)}.{node.attr.value}"


class PassMetadata:
    """The metadata of one pass's input tree, resolved as it is asked for.

    Kept for the next pass when a pass leaves the tree as it was (the pipeline then hands
    on the same module object), so analysis-only passes share one resolution.
    """

    def __init__(
        self,
        module: cst.Module,
        cache: Mapping[ProviderT, object],
        reexports: Reexports | None = None,
        forwarding_as: str = "torch.nn.DataParallel",
    ) -> None:
        self.source = module
        #: Names of imported program modules that are really outside names (facts.py).
        self.reexports = (
            reexports
            if reexports is not None
            and (reexports.names or reexports.forwarding or reexports.stars)
            else None
        )
        #: What the program's forwarding DataParallel subclasses are taken for
        #: (Reexports.forwarding): torch's DataParallel, DDP once model_wrap rebased them.
        self.forwarding_as = forwarding_as
        parents = parent_map(module)
        if parents is None:  # a node object occurs twice: copy, as libcst would
            module = module.deep_clone()
            parents = parent_map(module)
            assert parents is not None
        self.wrapper = MetadataWrapper(module, unsafe_skip_copy=True, cache=cache)
        self.parents = parents
        #: provider -> its metadata, for MetadataDependent.get_metadata
        self.resolved: dict[ProviderT, Mapping[cst.CSTNode, object]] = {ParentNodeProvider: parents}
        self._qualified: dict[cst.CSTNode, set[str]] = {}
        self._names: QualifiedNames | None = None
        self._aliases: dict[str, set[str]] | None = None
        self._stars: dict[str, str] | None = None

    def resolve(self, provider: type[BaseMetadataProvider[object]]) -> None:
        if provider not in self.resolved:
            if provider is PositionProvider:
                self.resolved[provider] = positions(self.wrapper.module)
            else:
                self.resolved[provider] = self.wrapper.resolve(provider)

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """What ParentNodeProvider gives for `node` (None for the module)."""
        return self.parents.get(node)

    def import_aliases(self) -> dict[str, set[str]]:
        """Each name an import binds with `as`, and the last dotted part of what it imports
        (`import torch.nn as tnn`: tnn -> {nn}; `from m import DataParallel as DP`: DP ->
        {DataParallel}): the only names whose qualified names do not end in the name
        itself. Read from the tree, not the text: a regular expression that skips comments
        between `NAME` and `as` backtracked exponentially over a run of `#` (issue 30)."""
        if self._aliases is None:
            self._aliases = {}
            for node in self.parents:
                if type(node) is cst.ImportAlias and node.asname is not None:
                    alias = node.asname.name
                    if isinstance(alias, cst.Name):
                        name = node.name
                        last = name.value if isinstance(name, cst.Name) else name.attr.value
                        self._aliases.setdefault(alias.value, set()).add(last)
        return self._aliases

    def star_names(self) -> dict[str, str]:
        """Names a module-level `from X import *` of a library whose exports are known
        (STAR_EXPORTS) binds, with what each names: `from tqdm import *` then `tqdm(...)`
        is tqdm.tqdm, as after `from tqdm import tqdm` (libcst's scope analysis sees no
        assignment of it: every rank drew the bar, where the named import was gated)."""
        if self._stars is None:
            self._stars = {}
            for statement in self.wrapper.module.body:
                if not isinstance(statement, cst.SimpleStatementLine):
                    continue
                for small in statement.body:
                    if not isinstance(small, cst.ImportFrom) or small.relative:
                        continue
                    if not isinstance(small.names, cst.ImportStar) or small.module is None:
                        continue
                    module = code_of_dotted(small.module)
                    for name in STAR_EXPORTS.get(module, ()):
                        self._stars[name] = f"{module}.{name}"
                    if module not in STAR_EXPORTS:  # exports unknown: maybe its imports
                        self._stars.update({name: name for name in STAR_MODULES})
        return self._stars

    def _star_module_attribute(self, node: cst.Attribute) -> set[str]:
        """`torch.save` where no import of the module binds `torch` but a star import of a
        module whose exports are unknown may (`from torchtools import *`, whose package
        runs `import torch`: khy0809/fewshot-egnn's train.py, v4-C of stop 57): the module
        of that name (STAR_MODULES), so its checkpoint write is rank 0's like any other."""
        stars = self.star_names()
        return _star_bound(node, None, {m: m for m in STAR_MODULES if stars.get(m) == m})

    def qualified_names(self, node: cst.CSTNode) -> set[str]:
        """What QualifiedNameProvider gives for `node` (names only), computed for this node
        alone: by QualifiedNames where it can tell, else by libcst's scope analysis."""
        names = self._qualified.get(node)
        if names is None:
            if self._names is None:
                self._names = QualifiedNames(self.wrapper.module, self.parents)
            names = self._names.names(node)
            if names is None:
                scope = self.wrapper.resolve(ScopeProvider).get(node)
                names = {q.name for q in scope.get_qualified_names_for(node)} if scope else set()
            if self.reexports is not None:
                names = names | _real_names(names, self.reexports.table)
                if not names.isdisjoint(self.reexports.forwarding):
                    names.add(self.forwarding_as)
            if type(node) is cst.Name and not any("." in n for n in names):
                star = self.star_names().get(node.value)
                if star is not None:
                    names = names | {star}
            if not names and self.reexports is not None and self.reexports.stars:
                names = _star_bound(node, self.parents.get(node), self.reexports.star_table)
            if not names and type(node) is cst.Attribute:
                names = self._star_module_attribute(node)
            self._qualified[node] = names
        return set(names)


def _star_bound(
    node: cst.CSTNode, parent: cst.CSTNode | None, stars: Mapping[str, str]
) -> set[str]:
    """The name of `node` (`os`, `os.path.join`) whose head no binding of the module resolves
    but a star import of a program module binds (Reexports.stars): its real dotted name. An
    attribute's own name (`x.os`) or a keyword's is no access of that binding."""
    if not isinstance(node, (cst.Name, cst.Attribute)):
        return set()
    if type(parent) is cst.Attribute and parent.attr is node:
        return set()
    if type(parent) is cst.Arg and parent.keyword is node:
        return set()
    parent = node
    while isinstance(parent, cst.Attribute):
        parent = parent.value
    if not isinstance(parent, cst.Name):
        return set()
    real = stars.get(parent.value)
    if real is None:
        return set()
    full = code_of_dotted(node)
    return {real + full[len(parent.value) :]}


def _real_names(names: set[str], table: Mapping[str, str]) -> set[str]:
    """What each of `names` really names where it starts with a re-exported name
    (`data_utils.DataLoader` -> `torch.utils.data.DataLoader`; `mymodels.nn.DataParallel`
    -> `torch.nn.DataParallel`): the longest re-exported prefix, with the rest kept."""
    found: set[str] = set()
    for name in names:
        cut = len(name)
        while cut > 0:
            real = table.get(name[:cut])
            if real is not None:
                found.add(real + name[cut:])
                break
            cut = name.rfind(".", 0, cut)
    return found


def children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`node.children`, without libcst's visitor (several times faster)."""
    for name in _fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            yield value
        elif isinstance(value, (tuple, list)):
            for item in value:
                if isinstance(item, cst.CSTNode):
                    yield item
