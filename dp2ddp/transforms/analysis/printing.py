"""Which functions and methods of a module print, log or write a file: computed once.

A running figure handed to one of them (`io.cprint(outstr)`, `log_string(...)`, a
`progress_bar(i, n, msg)` helper) is shown as by print (DP030, data/evaluation.py). The
program model finds them in every module of a program (rank_zero/program_hints.py:
ProgramHints.printers for other modules' calls, ProgramHints.printing for the module's
own); a module migrated alone, which no program told, asks here itself. Two copies of
this walk (one with `ast` for the program, one with libcst in the data pass) had drifted
apart: the program's missed nested functions, the pass's missed `__call__`.
"""

from __future__ import annotations

import ast
from typing import TypeAlias

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import resolved_name
from dp2ddp.transforms._support.names import PRINTS, SHOW_METHODS, WRITE_METHODS

#: (class, name) of a method that prints; ("", name) of a function that does.
Printing: TypeAlias = frozenset[tuple[str, str]]


def printing_functions(tree: ast.Module, table: dict[str, str]) -> Printing:
    """Every function of the module (nested ones too) and every method of its classes
    that prints, logs or writes a file or CSV row (_support/names.py: PRINTS,
    WRITE_METHODS, SHOW_METHODS: a logger's `info`, a bar's postfix, a TensorBoard
    scalar), directly or through others of them: a function by its plain call (`f()`), a
    method by `self.m()`. `table`: the module's import_table."""
    functions: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []
    for node in ast_nodes.listed(tree):
        if isinstance(node, ast.ClassDef):
            functions += [
                (node.name, s)
                for s in node.body
                if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
            ]
    methods = {id(f) for _, f in functions}
    functions += [
        ("", node)
        for node in ast_nodes.listed(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and id(node) not in methods
    ]
    calls = {
        id(f): [n.func for s in f.body for n in ast_nodes.walk(s) if isinstance(n, ast.Call)]
        for _, f in functions
    }

    def shows(func: ast.expr) -> bool:
        if isinstance(func, ast.Name) and func.id == "print":
            return "print" not in table
        return (isinstance(func, ast.Attribute) and func.attr in WRITE_METHODS | SHOW_METHODS) or (
            resolved_name(func, table) in PRINTS
        )

    found: set[tuple[str, str]] = set()
    while True:
        plain = {name for owner, name in found if not owner}
        printing_methods = {name for owner, name in found if owner}
        more = {
            (owner, f.name)
            for owner, f in functions
            if (owner, f.name) not in found
            and any(
                shows(func)
                or (isinstance(func, ast.Name) and func.id in plain)
                or (
                    isinstance(func, ast.Attribute)
                    and isinstance(func.value, ast.Name)
                    and func.value.id == "self"
                    and func.attr in printing_methods
                )
                for func in calls[id(f)]
            )
        }
        if not more:
            return frozenset(found)
        found |= more


def printer_names(tree: ast.Module, printing: Printing) -> frozenset[str]:
    """The names other modules call the module's printing functions and methods by
    (analysis/printing.py finds them): its top-level functions and its top-level classes'
    methods, and `Cls.__call__` for a class whose instances print when called
    (`stopper(loss)`): a running figure handed to one (`io.cprint(outstr)`) is shown."""
    top = {s.name for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    classes = {s.name for s in tree.body if isinstance(s, ast.ClassDef)}
    found = {name for owner, name in printing if (owner in classes if owner else name in top)}
    return frozenset(
        found
        | {
            f"{owner}.__call__"
            for owner, name in printing
            if name == "__call__" and owner in classes
        }
    )
