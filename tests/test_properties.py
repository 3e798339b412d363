"""Property-based tests over generated DataParallel scripts (hypothesis).

Whatever the import style, aliases, guard, arguments, comments, blank lines or nesting, the
migration must parse and compile, be a fixed point, and leave code outside its edits alone:
a marker block at the end and a header comment at the top come through byte for byte. The
same holds through the file layer (CRLF endings, BOM, encoding cookie).
"""

from __future__ import annotations

import libcst as cst
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dp2ddp import migrate_source
from dp2ddp.migrate.files import migrate_bytes
from dp2ddp.options import MigrateOptions

HEADER = "#!/usr/bin/env python\n# header comment: kept   as is\n"
MARKER = (
    "\n\n# ---- marker: must come through byte for byte ----\n"
    "def _marker_untouched(x ,y):   # odd  spacing\n"
    "    return (x+\n"
    "            y)  ;  # trailing\n"
)

IMPORTS = [
    ("import torch\nimport torch.nn as nn\n", "nn.DataParallel"),
    ("import torch\n", "torch.nn.DataParallel"),
    ("import torch\nfrom torch import nn\n", "nn.DataParallel"),
    ("import torch\nfrom torch.nn import DataParallel\n", "DataParallel"),
    ("import torch\nfrom torch.nn import DataParallel as DP\n", "DP"),
    ("import torch\nfrom torch.nn.parallel import DataParallel\n", "DataParallel"),
    ("import torch\nimport torch.nn.parallel as par\n", "par.DataParallel"),
]
ARGS = [
    "{m}",
    "{m}, device_ids=[0, 1]",
    "{m}, [0, 1]",
    "module={m}",
    "{m}, device_ids=list(range(torch.cuda.device_count())), output_device=0",
    "\n    {m},  # the model\n    device_ids=[0, 1],\n",
]
GUARDS = [
    None,
    "torch.cuda.device_count() > 1",
    "torch.cuda.is_available()",
    "n_gpu > 1",
    "use_multi_gpu",
]
COMMENTS = ["", "# a comment\n", "# DataParallel: use all GPUs\n", "\n", "\n\n"]


@st.composite
def scripts(draw: st.DrawFn) -> str:
    imports, dp = draw(st.sampled_from(IMPORTS))
    args = draw(st.sampled_from(ARGS))
    guard = draw(st.sampled_from(GUARDS))
    nesting = draw(st.sampled_from(["module", "function", "method"]))
    gap = draw(st.lists(st.sampled_from(COMMENTS), min_size=3, max_size=3))
    use_model = draw(st.booleans())

    target = "self.model" if nesting == "method" else "model"
    build = f"{target} = torch.nn.Linear(8, 4)\n"
    wrap = f"{target} = {dp}({args.format(m=target)})\n"
    if guard is not None:
        wrap = f"if {guard}:\n" + _indent(wrap)
    body = build + gap[1] + wrap
    if use_model:
        body += f"out = {target}(torch.randn(2, 8))\n"
    setup = "n_gpu = torch.cuda.device_count()\nuse_multi_gpu = n_gpu > 1\n"
    if nesting == "module":
        code = setup + gap[2] + body
    elif nesting == "function":
        code = setup + "\n\ndef main():\n" + _indent(body) + '\n\nif __name__ == "__main__":\n'
        code += "    main()\n"
    else:
        code = setup + "\n\nclass Trainer:\n    def __init__(self):\n" + _indent(body, 8)
        code += "\n\nTrainer()\n"
    return HEADER + imports + gap[0] + code + MARKER


def _indent(text: str, width: int = 4) -> str:
    pad = " " * width
    return "".join(pad + line if line.strip() else line for line in text.splitlines(True))


SETTINGS = settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


@SETTINGS
@given(scripts())
def test_migration_parses_is_idempotent_and_keeps_the_rest(source: str) -> None:
    compile(source, "input.py", "exec")  # the generator itself makes valid Python
    result = migrate_source(source, filename="train.py")
    assert result.changed, "every generated variant uses DataParallel"
    cst.parse_module(result.code)
    compile(result.code, "train.py", "exec")
    assert result.code.startswith(HEADER)
    assert MARKER in result.code
    again = migrate_source(result.code, filename="train.py")
    assert again.code == result.code


@settings(max_examples=5, deadline=None, derandomize=True)
@given(scripts(), st.booleans(), st.booleans())
def test_file_layer_keeps_line_endings_bom_and_cookie(source: str, crlf: bool, bom: bool) -> None:
    text = HEADER + "# -*- coding: utf-8 -*-\n" + source[len(HEADER) :]
    data = text.encode()
    if crlf:
        data = data.replace(b"\n", b"\r\n")
    if bom:
        data = b"\xef\xbb\xbf" + data
    outcome, new = migrate_bytes("train.py", data, MigrateOptions())
    assert outcome.status == "migrated" and new is not None
    assert new.startswith(data[: data.index(b"coding")])  # BOM, shebang, header, cookie
    assert (b"\r\n" in new) is crlf and (new.count(b"\r\n") == new.count(b"\n")) is crlf
    body = new.decode("utf-8-sig").replace("\r\n", "\n")
    assert outcome.result is not None and body == outcome.result.code
    assert MARKER in body and "\r" not in body
    again, newer = migrate_bytes("train.py", new, MigrateOptions())
    assert again.status == "unchanged" and newer is None
