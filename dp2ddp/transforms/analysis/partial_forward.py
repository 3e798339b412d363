"""Modules whose forward() may leave some of their parameters without a gradient (DP041).

DataParallel does not mind a parameter that gets no gradient in a step; DDP does: by
default its reducer waits for every parameter's gradient, and the next step fails with
"Expected to have finished reduction in the prior iteration ... parameters that were not
used in producing loss" (princeton-vl/pytorch_stacked_hourglass@ceedc14: a `Residual`
block builds a `skip_layer` that its forward() calls only `if self.need_skip:`). DDP needs
`find_unused_parameters=True` for such a model.

What is read, with `ast`, per class that defines both `__init__` and `forward`:

- the submodules and parameters `__init__` registers: `self.x = <torch.nn layer that has
  parameters>`, `nn.Parameter(...)`, `ModuleList`/`Sequential`/`ModuleDict`, or an instance
  of a class of the project (resolved through the module's imports);
- where forward() uses them (and the methods of the class it calls on `self`, inlined):
  on every path, or only on some: under an `if` one of whose branches does not use it
  (a branch on `self.training` counts as its training side), after an early `return`,
  in one arm of a conditional expression, in an `except` handler; only with gradients off
  (`with torch.no_grad():`, `with torch.set_grad_enabled(flag):` with a flag not proved
  True: BigGAN's G_D runs its generator so, class U3); only at an index computed at run
  time (`self.blocks[n - i - 1]`, rosinality's discriminator, U4; one walking every entry,
  `for i in range(len(self.x))` or `enumerate(self.x)` with no break, is proved; literal
  indices are counted by fixed_entries.py); in a loop over it that may leave at a `break`
  (the entries after it); `len(self.x)` runs none of them; a layer left behind;
- a layer `__init__` hands on to something it keeps (`self.features = nn.Sequential(
  self.conv1, self.bn1)`, a list filled in a loop, a ModuleDict, `self.blocks.append(
  self.fc2)`, another module holding it: `self.head = Head(self.shared)`) is used as its
  holders are; handed to something not known (`register(self.fc)`, `add_module`), it is
  not judged (a DenseNet-like forward calls only `self.features`: not all unused).

A submodule's output the caller drops (FloWaveNet: `for block in self.blocks: x, s =
block(x)`, the last block's `x` never read; `x, _ = self.block(x)`; `self.block(x)[0]`; in
forward() or a method it calls on `self`, ClariNet's `self.wavenet(x)`): the
callee's forward() returns a tuple literal; the parameters feeding only the dropped elements
(read through its local names and the methods it calls on `self`) get no gradient; kept are
the elements whose name is read after the call (read only before it, in a loop: the last
pass's is dropped). Not reported: a callee returning no tuple literal, a dropped element
sharing every layer with a kept one (`out, attn = self.attention(x)`), torch's layers (`out,
(h, c) = self.lstm(x)`); a library's model is said (analysis/dropped_outputs.py).

A forward() that reaches its children by name (`getattr(self, ...)`, `self._modules`,
`self.children()`...) is not judged. A model is partial when its class is, or a class its
`__init__` builds is (transitively, across modules): `partial_models` gives the first found."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import is_self_attribute, parse_python, plain_class
from dp2ddp.transforms.analysis import (
    fixed_entries,
    grad_paths,
    handed_callables,
    layer_holders,
    layer_names,
    library_parts,
    module_parts,
    unproved_reach,
)
from dp2ddp.transforms.analysis.bare_modules import bare_class_names
from dp2ddp.transforms.analysis.batch_axis import class_pools
from dp2ddp.transforms.analysis.batch_pairs import forward_cuts, forward_pairs
from dp2ddp.transforms.analysis.class_facts import ClassFacts, PartialUse
from dp2ddp.transforms.analysis.class_reach import NEVER_USED
from dp2ddp.transforms.analysis.dropped_outputs import (
    called_methods,
    dropped_outputs,
    held_classes,
    outputs,
    several_outputs,
    starved,
)
from dp2ddp.transforms.analysis.growing_methods import growing_methods
from dp2ddp.transforms.analysis.helper_layers import inlined, method_inlined
from dp2ddp.transforms.analysis.inherited_layers import inherited_base
from dp2ddp.transforms.analysis.layer_arguments import (
    filled_containers,
    filled_later,
    layers_as_arguments,
    read_arguments,
)
from dp2ddp.transforms.analysis.layer_names import has_parameters, module_imports, resolve
from dp2ddp.transforms.analysis.name_paths import names as _names
from dp2ddp.transforms.analysis.norm_layers import builds_norm
from dp2ddp.transforms.analysis.part_wraps import held_wrap
from dp2ddp.transforms.analysis.pooled_outputs import pooled_kept
from dp2ddp.transforms.analysis.repeated_forwards import BACKWARD_INSIDE, backward_inside

#: forward() reaching its children by name: which of them it uses is not known.
_BY_NAME = frozenset({"getattr", "vars", "setattr"})
_SELF_BY_NAME = frozenset(
    {"_modules", "_parameters", "__dict__", "children", "named_children", "modules",
     "named_modules", "parameters", "named_parameters", "__getattr__", "_modules_dict"}
)  # fmt: skip


@dataclass
class _Uses:
    always: set[str] = field(default_factory=set)
    #: attribute -> (how, line) of its first use that is not on every path.
    sometimes: dict[str, tuple[str, int]] = field(default_factory=dict)
    opaque: bool = False
    #: ids of the `self.x[i]` reads whose index provably walks every entry of `self.x`
    #: (see _covering_reads), shared by the branches' own _Uses.
    covered: set[int] = field(default_factory=set)
    #: The module's functions: a layer handed to one is used where its parameter is read.
    functions: Mapping[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    #: attribute -> (how, line): handed only to such functions, to parameters never read.
    unread: dict[str, tuple[str, int]] = field(default_factory=dict)
    #: nn.Parameter attributes: indexed, still one parameter with a gradient (v1-D).
    tensors: frozenset[str] = frozenset()
    #: An `if` testing only attributes of self (a flag fixed when the model is built) takes
    #: both arms: the scan of the layers `__init__` builds under such a flag (s50 v1-A).
    flags: bool = False

    def inner(self) -> _Uses:
        """The uses of one branch (an `if` arm, a conditional expression's arm)."""
        return _Uses(
            covered=self.covered,
            functions=self.functions,
            unread=self.unread,
            tensors=self.tensors,
            flags=self.flags,
        )


def module_classes(import_name: str, path: str, source: str) -> dict[str, ClassFacts]:
    """The nn.Module-like classes of one module (defining `__init__` and `forward`, or only
    a `forward` that compares the batch's rows), by qualified name (`import_name.Class`;
    the bare name when `import_name` is empty)."""
    if "forward" not in source:
        return {}
    try:
        tree = parse_python(source)
    except (SyntaxError, ValueError, RecursionError):
        return {}
    is_package = path.endswith("__init__.py")
    imports = module_imports(tree, import_name, is_package)
    local = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    prefix = f"{import_name}." if import_name else ""
    bare = bare_class_names([n for n in tree.body if isinstance(n, ast.ClassDef)])
    found: dict[str, ClassFacts] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):  # a plain class is no module: its pairs only
            plain = plain_class(node)
            facts = None if plain else _class_facts(node, imports, local, prefix, path, functions)
            inherited = (
                None
                if facts or plain
                else inherited_base(node, lambda f: resolve(f, imports, local, prefix))
            )
            if inherited is not None:  # its layers are a base's (inherited_layers.py)
                use = PartialUse(node.name, "", inherited[0], node.lineno, path)
                facts = ClassFacts(partial=((use, inherited[1]),))
            pairs, pools = forward_pairs(node, path, functions), class_pools(node, path)
            cuts = forward_cuts(node, path)
            if facts is None and (pairs or cuts or pools or node.name in bare):
                # No __init__ of its own (a loss class needs none): only what forward()
                # compares is known of it, and it is all DP040 by use asks (stop 49 f1);
                # and that it may hold no parameter, for its wrap (stop 58 s1, left).
                found[prefix + node.name] = ClassFacts(pairs=pairs, cuts=cuts, pools=pools)
            if facts is not None:
                several = several_outputs(node, lambda f: resolve(f, imports, local, prefix))
                grows = growing_methods(node, lambda v: has_parameters(v, imports, local, prefix))
                reach = unproved_reach.class_reach(
                    node, facts.registered, lambda f: resolve(f, imports, local, prefix), path
                )
                wrap = held_wrap(node, path)
                feeds, handed = handed_callables.class_callables(
                    node, facts.registered, lambda f: resolve(f, imports, local, prefix), path,
                    functions,
                )  # fmt: skip
                found[prefix + node.name] = replace(
                    facts,
                    pairs=pairs,
                    cuts=cuts,
                    grows=grows,
                    several=several,
                    reach=reach,
                    held_wrap=wrap,
                    norms=builds_norm(node, lambda f: resolve(f, imports, local, prefix)),
                    pools=pools,
                    feeds=feeds,
                    handed=handed,
                )
    return found


def partial_models(
    classes: Mapping[str, ClassFacts], empty: frozenset[str] = frozenset()
) -> dict[str, PartialUse]:
    """Per class: its own partial use, else the first of the classes it builds, transitively.
    A layer of a class in `empty` (bare_modules.empty_classes: buffers only) is no use."""
    done: dict[str, PartialUse | None] = {}
    outputs_of = {name: facts.outputs for name, facts in classes.items()}
    entries_of = {name: facts.reach.entries for name, facts in classes.items()}
    signatures = {name: facts.reach.signature for name, facts in classes.items()}
    feeds_of = {name: facts.feeds for name, facts in classes.items() if facts.feeds}

    def visit(name: str, seen: frozenset[str]) -> PartialUse | None:
        if name in done:
            return done[name]
        facts = classes.get(name)
        if facts is None or name in seen:
            return None
        found = next(
            (
                u
                for u, needs in facts.partial
                if grad_paths.layer_judged(u.how, needs, classes, empty)
            ),
            None,
        )
        for dropped in facts.dropped if found is None else ():
            how = starved(dropped, outputs_of, classes)
            if how is not None:
                found = PartialUse(dropped.cls, dropped.attribute, how, dropped.line, dropped.path)
                break
        unproved = unproved_reach.unproved(name, facts.reach, entries_of, signatures)
        unproved = unproved or handed_callables.ignored(facts.handed, feeds_of)
        found = found or (PartialUse(*unproved) if unproved else None)
        for apart in facts.taken_apart if found is None else ():
            missed = module_parts.unreached(apart, classes)
            if missed is not None:
                found = PartialUse(apart.cls, missed[0], missed[1], apart.line, apart.path)
                break
        for child in facts.children:
            if found is not None:
                break
            found = visit(child, seen | {name})
        done[name] = found
        return found

    return {name: use for name in classes if (use := visit(name, frozenset())) is not None}


# -- one class -------------------------------------------------------------------------------
def _class_facts(
    cls: ast.ClassDef,
    imports: Mapping[str, str],
    local: set[str],
    prefix: str,
    path: str,
    functions: Mapping[str, ast.FunctionDef | ast.AsyncFunctionDef] | None = None,
) -> ClassFacts | None:
    methods = {
        n.name: n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    init, forward = methods.get("__init__"), methods.get("forward")
    if init is None or forward is None or not init.args.args or not forward.args.args:
        return None
    registered: dict[str, tuple[int, str]] = {}
    #: the names a chained assignment binds one layer to (`self.conv1 = self.features =
    #: nn.Sequential(...)`): one module, used when any of its names is
    aliases: dict[str, frozenset[str]] = {}
    children: list[str] = []
    me = init.args.args[0].arg
    for node in ast_nodes.walk(init):
        if isinstance(node, ast.Call):
            resolved = resolve(node.func, imports, local, prefix)
            if resolved is not None and resolved[1] and resolved[0] not in children:
                children.append(resolved[0])
    # What __init__ builds on every path (a flag's layer is used under its flag), or fills.
    filled = filled_later(init, lambda f: resolve(f, imports, local, prefix))
    for node in init.body:
        if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        names = frozenset(
            t.attr for t in targets if isinstance(t, ast.Attribute) and is_self_attribute(t, me)
        )
        for target in targets:
            if (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == me
            ):
                holds = has_parameters(node.value, imports, local, prefix)
                if holds is None and (built := inlined(node.value, functions or {})):
                    holds = has_parameters(built, imports, local, prefix)  # `clones(x, 3)`
                if holds is None and (built := method_inlined(node.value, methods, me)):
                    holds = has_parameters(built, imports, local, prefix)  # `self._make(...)`
                if holds is None and (bound := layer_names.bound_layer_call(node.value, init)):
                    holds = has_parameters(bound, imports, local, prefix)  # `norm_layer(w)`
                if holds is not None or target.attr in filled:
                    registered.setdefault(target.attr, (node.lineno, holds or ""))
                    aliases[target.attr] = names | layer_names.contents_of(node, me, registered)
    # A call of a submodule whose output forward() drops: also in a class whose layers are
    # all in containers filled later (`self.blocks = nn.ModuleList()`, then `.append`).
    held = held_classes(init, me, lambda func: resolve(func, imports, local, prefix))
    reached = (forward, *called_methods(forward, methods))
    dropped = tuple(
        f
        for fn in reached
        for f in dropped_outputs(cls.name, fn, held, path)
        if not pooled_kept(f, init)
    )
    # A children walk that may break, or a torchvision model taken apart (also in a class with
    # no other layer), leaves the rest unused, whatever else is known.
    heads = module_parts.torchvision_heads(
        init, lambda f: resolve(f, imports, local, prefix), reached
    )
    heads += library_parts.unknown_models_taken_apart(
        init, lambda f: resolve(f, imports, local, prefix), reached, registered
    )
    walks = module_parts.walked_with_break(reached) + heads
    walked = tuple((PartialUse(cls.name, *w, path), "") for w in walks)
    # 31f2: a module handed in (`self.t_net = t_net`) read only detached or under no_grad
    handed = module_parts.detached_only(reached, module_parts.handed_in(init, me, registered))
    known = (*walked, *((PartialUse(cls.name, *h, path), "") for h in handed))
    layers = {a: h for a, (_, h) in registered.items()}  # handed to a method, output dropped
    layers |= {a: "" for a in filled_containers(init, lambda f: resolve(f, imports, local, prefix))}
    handed_to = layers_as_arguments(reached, methods, layers, functions or {})
    known += tuple((PartialUse(cls.name, *h, path), layers[h[0]]) for h in handed_to)
    inside = backward_inside(reached)
    known = (*((PartialUse(cls.name, "", *b, path), "") for b in inside), *known)
    builds = lambda v: has_parameters(v, imports, local, prefix)  # noqa: E731
    flagged = layer_holders.built_under_flags(init, me, builds)
    flagged = {a: built for a, built in flagged.items() if a not in registered}
    if not registered and not flagged:
        return ClassFacts(known, tuple(children), None, dropped)
    own = frozenset(registered)
    uses = _Uses(functions=functions or {}, tensors=grad_paths.parameter_attributes(init, me))
    _scan_function(forward, methods, uses, set(), False)
    if flagged:
        # Built only under a flag of __init__ (`if multi_scale: self.up2 = ...`): used under
        # the same flag is taken as used; picked by anything else, per call (`if scale ==
        # 2: return self.up2(x)`, nmhkahn/CARN-pytorch@40d3514 carn/model/ops.py:109), the
        # others get no gradient in that step. One forward() never reads, nor another
        # method, nor a holder (`if self.layer_norm:` building six BatchNorms, one never
        # applied, gcharvi31/Future-Frame-Prediction-and-Segmentation@b64a0c3
        # frame_pred/src/STConvLSTM.py:84, stop 61 v1-A), gets none in any step.
        by_flag = replace(uses.inner(), flags=True)
        _scan_function(forward, methods, by_flag, set(), False)
        kept = layer_holders.holders(init, me).keys() | _read_outside(methods) | by_flag.always
        for attribute, (line, holds) in flagged.items():
            if attribute in by_flag.sometimes and attribute not in by_flag.always:
                how, where = by_flag.sometimes[attribute]
                known += ((PartialUse(cls.name, attribute, how, where, path), holds),)
            elif not by_flag.opaque and attribute not in kept | by_flag.sometimes.keys():
                use = PartialUse(cls.name, attribute, NEVER_USED, line, path)
                known += ((use, holds),)
    if not registered:
        return ClassFacts(known, tuple(children), None, dropped)
    if not uses.always and not uses.sometimes:
        # A forward() that uses nothing of self: a base class's stub (`pass`, `raise
        # NotImplementedError`; thunlp/OpenNRE's BaseEncoder), overridden where it is used.
        return ClassFacts((), tuple(children), registered=own, methods=frozenset(methods))
    holders = layer_holders.holders(init, me)
    returned = outputs(forward, methods, registered, holders)
    if uses.opaque:
        # Which layers it uses is not known, but what feeds its outputs is read all the
        # same (`if next(self.parameters()).is_cuda:` in Transformer-TTS's MelDecoder): a
        # layer reached by name is missed, which can only report a dropped one for nothing.
        return ClassFacts(known, tuple(children), returned, dropped, own, (), frozenset(methods))
    apart = module_parts.taken_apart(cls.name, path, reached, registered, holders)
    elsewhere = _read_outside(methods)
    partial: list[tuple[PartialUse, str]] = []
    judged: set[str] = set()
    for attribute, (line, holds) in registered.items():
        names = aliases.get(attribute, frozenset({attribute}))
        if names & judged or names & uses.always:
            continue  # one layer under two names: judged once, used if either is
        judged.add(attribute)
        if attribute in holders:
            # Held by a container or another module `__init__` builds: used as its holders
            # are. A holder forward() never uses is reported itself; one that is not known
            # (the layer handed to a call whose result is not kept) is not judged.
            through = _through_holders(attribute, holders, uses)
            if through is not None:
                how, where = through
                partial.append((PartialUse(cls.name, attribute, how, where, path), holds))
            continue
        sometimes = [n for n in (attribute, *sorted(names)) if n in uses.sometimes]
        if sometimes:
            how, where = uses.sometimes[sometimes[0]]
            partial.append((PartialUse(cls.name, sometimes[0], how, where, path), holds))
        elif not names & elsewhere:
            how = NEVER_USED
            if attribute in uses.unread:
                how, line = uses.unread[attribute]
            partial.append((PartialUse(cls.name, attribute, how, line, path), holds))
    late = module_parts.frozen_after_wrap(methods)
    late += module_parts.detached_only(reached, registered)
    late += fixed_entries.unread_entries(cls, registered, reached, functions)
    partial += [(PartialUse(cls.name, text, how, line, path), "") for text, how, line in late]
    partial += known
    partial.sort(key=lambda use: BACKWARD_INSIDE not in use[0].how)  # named first (DP097)
    return ClassFacts(
        tuple(partial), tuple(children), returned, dropped, own, apart, frozenset(methods)
    )


def _read_outside(methods: Mapping[str, ast.FunctionDef | ast.AsyncFunctionDef]) -> set[str]:
    """The attribute names read by the class's methods other than `__init__` and forward()."""
    return {
        node.attr
        for name, method in methods.items()
        if name not in ("__init__", "forward")
        for node in ast_nodes.walk(method)
        if isinstance(node, ast.Attribute)
    }


def _through_holders(
    attribute: str, holders: Mapping[str, set[str]], uses: _Uses
) -> tuple[str, int] | None:
    """How forward() reaches `attribute` through its holders: None when on every path (or
    not judged: a holder not known, or never used by forward() and so reported itself);
    else (how, line) of a holder's first use that is not on every path."""
    seen: set[str] = set()
    stack = [attribute]
    sometimes: tuple[str, int] | None = None
    while stack:
        current = stack.pop()
        for holder in sorted(holders.get(current, set())):  # the same text in every run
            if holder in seen:
                continue
            seen.add(holder)
            if holder == "" or holder in uses.always:
                return None
            if holder in uses.sometimes and sometimes is None:
                how, line = uses.sometimes[holder]
                sometimes = (how.replace("{attr}", f"{{attr}} (in self.{holder})"), line)
            stack.append(holder)
    return sometimes


# -- where forward() uses what ---------------------------------------------------------------
def _scan_function(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    methods: Mapping[str, ast.FunctionDef | ast.AsyncFunctionDef],
    uses: _Uses,
    inlined: set[str],
    conditional: bool,
    why: str = "",
) -> None:
    if not function.args.args:
        return
    me = function.args.args[0].arg
    inlined = inlined | {function.name}
    uses.covered |= grad_paths.covering_reads(function, me, methods)
    _scan_block(function.body, me, methods, uses, inlined, conditional, why)


def _scan_block(
    body: Iterable[ast.stmt],
    me: str,
    methods: Mapping[str, ast.FunctionDef | ast.AsyncFunctionDef],
    uses: _Uses,
    inlined: set[str],
    conditional: bool,
    why: str,
    loop_vars: frozenset[str] = frozenset(),
) -> None:
    """Uses in `body`; `conditional`: not every pass through the function gets here (`why`
    says how). An `if` on a variable of an enclosing `for` loop (`if i < n - 1:` picking
    the last pass out) takes each branch in some pass: both count as used."""
    for statement in body:
        if isinstance(statement, ast.If):
            _expression(statement.test, me, methods, uses, inlined, conditional, why)
            test = ast.unparse(statement.test)
            training = grad_paths.training_side(statement.test, me)
            per_pass = bool(loop_vars & _names(statement.test))
            per_pass = per_pass or (uses.flags and _names(statement.test) <= {me})
            body_why = f"uses {{attr}} only when `{test}`"
            else_why = f"uses {{attr}} only when not `{test}`"
            branch_uses = []
            for block, branch_why, taken in (
                (statement.body, body_why, training is True),
                (statement.orelse, else_why, training is False),
            ):
                inner = uses.inner()
                _scan_block(block, me, methods, inner, inlined, conditional, why, loop_vars)
                branch_uses.append((inner, block, branch_why, taken))
                uses.opaque = uses.opaque or inner.opaque
            (first, *_), (second, *_) = branch_uses
            for inner, _block, branch_why, taken in branch_uses:
                for name, first_use in inner.sometimes.items():
                    uses.sometimes.setdefault(name, first_use)
                for name in inner.always:
                    on_both = name in first.always and name in second.always
                    if (on_both or taken or per_pass) and not conditional:
                        uses.always.add(name)
                    else:
                        said = (
                            why if conditional else grad_paths.both(branch_why, branch_uses, name)
                        )
                        uses.sometimes.setdefault(name, (said, statement.lineno))
            if not conditional and not per_pass and grad_paths.exits(statement, training):
                conditional = True
                why = (
                    f"uses {{attr}} only when the early return at line {statement.lineno} "
                    "is not taken"
                )
        elif isinstance(statement, ast.Try):
            _scan_block(statement.body, me, methods, uses, inlined, conditional, why, loop_vars)
            for handler in statement.handlers:
                _scan_block(
                    handler.body, me, methods, uses, inlined, True,
                    why or f"uses {{attr}} only in the `except` at line {handler.lineno}",
                )  # fmt: skip
            _scan_block(statement.orelse, me, methods, uses, inlined, conditional, why, loop_vars)
            _scan_block(
                statement.finalbody, me, methods, uses, inlined, conditional, why, loop_vars
            )
        elif isinstance(statement, (ast.For, ast.AsyncFor, ast.While)):
            head = statement.test if isinstance(statement, ast.While) else statement.iter
            stop = module_parts.own_break(statement.body)
            if stop is not None and not conditional and not isinstance(statement, ast.While):
                # The containers the loop walks (`for i, b in enumerate(self.blocks)`): the
                # entries after a `break` (`if i == step: break`) get no gradient.
                text = ast.unparse(head).replace("{", "{{").replace("}", "}}")
                _expression(
                    head, me, methods, uses, inlined, True,
                    f"walks {text} in a loop that may leave at the break at line "
                    f"{stop.lineno}: {{attr}}'s entries after it get no gradient",
                )  # fmt: skip
            else:
                _expression(head, me, methods, uses, inlined, conditional, why)
            inner_vars = loop_vars
            if not isinstance(statement, ast.While):
                inner_vars = loop_vars | _names(statement.target)
            _scan_block(statement.body, me, methods, uses, inlined, conditional, why, inner_vars)
            _scan_block(statement.orelse, me, methods, uses, inlined, conditional, why, loop_vars)
        elif isinstance(statement, (ast.With, ast.AsyncWith)):
            for item in statement.items:
                _expression(item.context_expr, me, methods, uses, inlined, conditional, why)
            off = next(
                (
                    grad
                    for item in statement.items
                    if (grad := grad_paths.grad_off(item, me)) is not None
                ),
                None,
            )
            inner_why = why
            if off is not None and not conditional:
                # A layer run with gradients off (or only when an argument turns them on:
                # BigGAN's G_D, `with torch.set_grad_enabled(train_G):`) gets no gradient
                # from this use: it is not proved to get one in every step.
                at = f"{off}` (line {statement.lineno})"
                inner_why = f"{grad_paths.GRAD_OFF}{at}, where it may get no gradient"
            _scan_block(
                statement.body, me, methods, uses, inlined, conditional or off is not None,
                inner_why, loop_vars,
            )  # fmt: skip
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            _expression(statement, me, methods, uses, inlined, conditional, why)
        elif (arguments := grad_paths.mode_call_arguments(statement, me)) is not None:
            for argument in arguments:  # `self.bert.eval()`: no use of self.bert (v2-E)
                _expression(argument, me, methods, uses, inlined, conditional, why)
        else:
            _expression(statement, me, methods, uses, inlined, conditional, why)
            if isinstance(statement, (ast.Return, ast.Raise)) and not conditional:
                return  # what follows never runs


def _expression(
    node: ast.AST,
    me: str,
    methods: Mapping[str, ast.FunctionDef | ast.AsyncFunctionDef],
    uses: _Uses,
    inlined: set[str],
    conditional: bool,
    why: str,
) -> None:
    """Uses of `self.x` under `node`; a conditional expression's arms count as one branch
    each."""
    if isinstance(node, ast.IfExp):
        _expression(node.test, me, methods, uses, inlined, conditional, why)
        test = ast.unparse(node.test)
        arms = []
        for arm in (node.body, node.orelse):
            inner = uses.inner()
            _expression(arm, me, methods, inner, inlined, conditional, why)
            arms.append(inner)
            uses.opaque = uses.opaque or inner.opaque
            uses.sometimes.update(
                {k: v for k, v in inner.sometimes.items() if k not in uses.sometimes}
            )
        for inner, what in ((arms[0], f"`{test}`"), (arms[1], f"not `{test}`")):
            for name in inner.always:
                if name in arms[0].always and name in arms[1].always and not conditional:
                    uses.always.add(name)
                else:
                    uses.sometimes.setdefault(
                        name, (why or f"uses {{attr}} only when {what}", node.lineno)
                    )
        return
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name) and func.id in _BY_NAME and me in _names(node):
            uses.opaque = True
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == me
            and func.attr in methods
            and func.attr not in inlined
        ):
            _scan_function(methods[func.attr], methods, uses, inlined, conditional, why)
        if (
            isinstance(func, ast.Name)
            and func.id == "len"
            and len(node.args) == 1
            and is_self_attribute(node.args[0], me)
        ):
            return  # counting a container's entries runs none of them
        if isinstance(func, ast.Name) and func.id in uses.functions and func.id not in inlined:
            read = read_arguments(uses.functions[func.id], node, me, uses.unread)
            if read is not None:  # a layer handed to a parameter never read: not a use
                for argument in read:
                    _expression(argument, me, methods, uses, inlined, conditional, why)
                return
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.ctx, ast.Load)
        and is_self_attribute(node.value, me)
        and not grad_paths.fixed_index(node.slice)
        and id(node) not in uses.covered
        and not (isinstance(node.value, ast.Attribute) and node.value.attr in uses.tensors)
    ):
        # `self.blocks[n - i - 1]`: an entry picked at run time (rosinality's progressive
        # discriminator, `self.progression[index]` for the steps grown so far): the other
        # entries are not proved to get a gradient.
        assert isinstance(node.value, ast.Attribute)
        attribute = node.value.attr
        if attribute not in _SELF_BY_NAME and attribute not in uses.always:
            index = ast.unparse(node.slice).replace("{", "{{").replace("}", "}}")
            uses.sometimes.setdefault(
                attribute,
                (
                    why
                    or f"uses {{attr}} only at the index `{index}` computed at run time: "
                    "its other entries may get no gradient",
                    node.lineno,
                ),
            )
        _expression(node.slice, me, methods, uses, inlined, conditional, why)
        return
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == me:
        if node.attr in _SELF_BY_NAME:
            uses.opaque = True
        elif conditional:
            if node.attr not in uses.always:
                uses.sometimes.setdefault(node.attr, (why, getattr(node, "lineno", 0)))
        else:
            uses.always.add(node.attr)
            uses.sometimes.pop(node.attr, None)
    for child in ast.iter_child_nodes(node):
        _expression(child, me, methods, uses, inlined, conditional, why)
