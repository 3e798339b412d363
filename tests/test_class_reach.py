"""analysis/class_reach.py: the classes a program may build, and the layers it calls from
outside their class (DP041's program-wide questions)."""

from __future__ import annotations

import ast
import textwrap

from dp2ddp.transforms.analysis.class_reach import (
    built_classes,
    called_attributes,
    module_reach,
)


def _reach(**modules: str) -> list[tuple[str, object]]:
    return [
        (name, module_reach(name, ast.parse(textwrap.dedent(src)))) for name, src in modules.items()
    ]


def test_a_class_named_only_by_an_unbuilt_class_is_not_built() -> None:
    reaches = _reach(
        train="from nets import build\nmodel = build()\n",
        nets=(
            "class A: pass\nclass B: pass\nclass C:\n    def __init__(self): self.b = B()\n"
            "def build():\n    return A()\n"
        ),
    )
    built = built_classes(reaches)  # type: ignore[arg-type]
    assert built is not None and "A" in built and "B" not in built and "C" not in built


def test_dynamic_lookups_widen_the_reach() -> None:
    reaches = _reach(
        train="import nets as N\nimport sys\nmodel = getattr(N, sys.argv[1])()\n",
        nets="class A: pass\nclass B: pass\n",
        other="class D: pass\nMODELS = {'D': None}\n",
        deco="@register\nclass E: pass\n",
    )
    built = built_classes(reaches)  # type: ignore[arg-type]
    assert built is not None and {"A", "B", "D", "E"} <= built
    assert built_classes(_reach(train="exec(code)\n")) is None  # type: ignore[arg-type]


def test_layers_called_through_another_object() -> None:
    reach = module_reach(
        "n",
        ast.parse(
            "class D:\n    def f(self, m):\n        self.own(m)\n"
            "        self.att.memory_layer(m)\n        m.head.forward(m)\n"
        ),
    )
    assert called_attributes([reach]) == {"memory_layer", "head"}


def test_a_function_that_wraps_runs_and_a_looked_up_module_reaches_its_builders() -> None:
    reaches = _reach(
        train=(
            "import nets, sys\nfrom torch import nn\n"
            "def build():\n    return nn.DataParallel(Grow())\n"
            "model = getattr(nets, sys.argv[1])()\n"
        ),
        nets="from parts import Gate\ndef build_ban():\n    return Gate()\n",
        parts="class Gate: pass\nclass Grow: pass\nclass Unused: pass\n",
    )
    built = built_classes(reaches)  # type: ignore[arg-type]
    assert built is not None and {"Grow", "Gate"} <= built and "Unused" not in built
