"""A computed import name's static end (program/dynamic_imports.py, stop 45's v2-D): the
package's modules whose names end so join the program, whatever they wrap or build. Its
static start (the package) likewise, also of a `%` template (stop 46, v1-B)."""

from __future__ import annotations

import ast

import pytest

from dp2ddp.program.dynamic_imports import call_sites, found_calls


@pytest.mark.parametrize(
    ("argument", "suffix"),
    [
        ('"models." + name + "_model"', "_model"),
        ('f"models.{name}_model"', "_model"),
        ('"models.{}_model".format(name)', "_model"),
        ('"models." + name', ""),
        ('f"models.{name}"', ""),
        ('"models." + name + ".net"', ""),  # a dotted end names no module file
        # stop 46, v1-B (icoz69/CEC-CVPR2021): printf-style templates, read as no name before
        ('"models.%s_model" % name', "_model"),
        ('"models.%s.fscil_trainer" % (name)', ""),
        ('"models.%(kind)s_model" % {"kind": name}', "_model"),
    ],
)
def test_the_static_end_of_a_computed_name(argument: str, suffix: str) -> None:
    source = (
        f"import importlib\n\ndef load(name):\n    return importlib.import_module({argument})\n"
    )
    (site,) = call_sites(found_calls(ast.parse(source)), "main", False, "main.py")
    assert site.name is None and site.prefix == "models"
    assert site.suffix == suffix


def test_a_variable_holding_the_name_is_read_too() -> None:
    source = (
        "import importlib\n\ndef load(name):\n"
        '    filename = "models." + name + "_model"\n'
        "    return importlib.import_module(filename)\n"
    )
    (site,) = call_sites(found_calls(ast.parse(source)), "main", False, "main.py")
    assert (site.prefix, site.suffix) == ("models", "_model")


def test_a_percent_template_with_a_literal_percent_is_not_read() -> None:
    source = 'import importlib\nimportlib.import_module("models.%%.%s" % name)\n'
    (site,) = call_sites(found_calls(ast.parse(source)), "main", False, "main.py")
    assert site.opaque
