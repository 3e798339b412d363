"""Flow: where values come from, for every pass that must prove something about them.

Below the passes (imports only libcst and its own modules; transforms/ and program/ import
it). One def-use view per module tree, built in one iterative walk and cached per tree, and
backward questions over it. The API:

``view(module) -> DefUse``  (flow/defuse.py) the module's view, built once per tree:
    ``definitions(name)`` the bindings a use of a Name may read (each a ``Definition``:
    target, value, kind, statement, element path of an unpacking); ``reaching(name)`` the
    same narrowed by the blocks around the use (a plain earlier binding hides older ones, a
    loop's target and body bindings kept; what origins uses);
    ``uses(scope, name)``; ``attribute_definitions(cls, attr)`` (``self.attr = ...`` in
    its methods); ``functions`` (node -> ``Function``: params, returns, yields, owner
    class); ``call_sites(function)``; ``callees(call)`` (a name followed through aliases
    and tables of functions: flow/called.py); ``class_called(call)``;
    ``method(cls, name)``; ``parent(node)``, ``ancestors(node)``, ``scope_of(node)``,
    ``statement_of(node)``; ``imported(name)``; ``calls`` (every Call of the module).

``bindings(module) -> Bindings``  (flow/bindings.py) which assignments a Name reads and
    which uses an assignment has, with libcst's ScopeProvider's meaning, over the view (the
    data and batch passes' `referents`; no scope analysis per pass).

``tree_nodes(module)``, ``parent_map(module)``  (flow/children.py) every node in source
    order and each node's parent, once per tree (``PerTree``), as the view and bindings are.

``origins(view, expr, stop=None) -> list[Origin]``  (flow/origins.py) the sources a value
    may come from: each ``Origin`` has a ``kind`` (constant, call, parameter, import, global,
    definition, instance, attribute, unknown), its ``node`` and ``path`` (``Step``s, source
    first: node + what happened there). ``stop(call)``: calls not to go through (a model's
    call: its output is a source). ``origin.selects``: the source only selects or shapes the
    value (`X[idx]`'s idx, a `.view(n)` argument, `dtype=`), ``origin.selection``: only as a
    key/index/slice bound; ``origin.cut``: the value is a part of the source's (sliced,
    indexed, iterated); ``origin.entered()``: the module's calls the path went through (a
    parameter on it is bound by the argument of that call). A library or builtin call is a
    source and its positional arguments are followed too (`os.path.join(a, b)`: a, b).
    One data path and one selecting path are kept per source. ``origin.flow(position)``
    renders the path as
    ``torch.randn(4, 3) at 12:8 → x at 13:0 → model(x) at 14:4`` for a warning, with the
    pass's positions (the view computes none: positions cost a code generation).

Read as may-analyses: flow-insensitive definitions (every binding of a name in scope),
every call site of a function where the walk did not come through one. A proof built on
them treats ``unknown`` (and any kind it does not expect) as not proved: say it, never
assume it. Module boundaries: an imported name is a source of kind ``import``; the program
model (ProgramFacts) answers what another module gives.
"""

from __future__ import annotations

from dp2ddp.flow.defuse import Definition, DefUse, Function, view
from dp2ddp.flow.origins import Origin, Step, origins
from dp2ddp.flow.text import code

__all__ = ["DefUse", "Definition", "Function", "Origin", "Step", "code", "origins", "view"]
