"""A cheap test that a file cannot use DataParallel, so it need not be parsed at all.

Parsing is by far the most expensive step of a run, and in a real repository almost every
file has nothing to migrate. `may_use_dataparallel` is conservative: it answers False only
when `migrate_source` would leave the file unchanged. The detector matches by qualified
name (dp2ddp/transforms/_support/names.py), and every spelling that can resolve to those
names has, in code:
- the word `DataParallel` (`nn.DataParallel`, `DataParallel as DP`), or
- the word `data_parallel` (the functional form, flagged DP002) together with the word
  `parallel`: it lives only in torch.nn.parallel, so any import of it or attribute path
  to it names that module (`parallel.data_parallel`, `from torch.nn import parallel`).
  An unrelated `config.data_parallel` attribute therefore does not cost a parse.
- a project's DataParallel wrapper, warned DP002 so that no file calling one is passed over
  in silence: a name with `DataParallel` in it (`DataParallelWithCallback`,
  `MyDataParallel`) other than the distributed look-alikes (DistributedDataParallel,
  FullyShardedDataParallel, ShardedDataParallel), or `patch_replication_callback`.
- the word `parallel_apply` together with the word `parallel`: DataParallel written by hand
  (replicate the model, scatter the batch, run the replicas with parallel_apply, gather;
  facebookresearch/dlrm@090956e). It runs every replica in one process, so under torchrun
  each process would train on the whole batch alone: DP002, never "unchanged" in silence.
(A file that only uses nn.parallel's scatter, gather or replicate, which run no replicas,
or a distributed look-alike, is not parsed, so the detector's informational DP002 about it
is not reported: it has no DataParallel to migrate.)

Words are matched on word boundaries: "DataParallel" is a substring of
"DistributedDataParallel", which a DDP-only file is full of. A mention inside a comment or a
plain string literal (documentation, error messages) does not count; f-strings are kept,
since their braces hold code.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"(?<![\w])(?:DataParallel|data_parallel)(?![\w])")
_CLASS = re.compile(r"(?<![\w])DataParallel(?![\w])")
_WRAPPER = re.compile(
    r"(?<![\w])(?!(?:Distributed|FullySharded|Sharded)DataParallel(?![\w]))\w*DataParallel\w*"
    r"|(?<![\w])patch_replication_callback(?![\w])"
)
_FUNCTION = re.compile(r"(?<![\w])data_parallel(?![\w])")
_MODULE = re.compile(r"(?<![\w])parallel(?![\w])")
_APPLY = re.compile(r"(?<![\w])parallel_apply(?![\w])")

# Comments and string literals in the order Python's tokenizer finds them: whichever of a
# `#` or a quote comes first outside a literal starts the next match.
_NOT_CODE = re.compile(
    r"""
      \#[^\r\n]*
    | (?P<prefix>[rRbBuUfF]{0,3})
      (?: '''(?:[^\\]|\\.)*?'''
        | \"\"\"(?:[^\\]|\\.)*?\"\"\"
        | '(?:[^'\\\r\n]|\\.)*'
        | "(?:[^"\\\r\n]|\\.)*"
      )
    """,
    re.VERBOSE | re.DOTALL,
)


def _blank(match: re.Match[str]) -> str:
    prefix = match.group("prefix")
    if prefix is not None and "f" in prefix.lower():
        return match.group(0)  # an f-string's replacement fields are code
    return " "


def code_only(text: str) -> str:
    """`text` with comments and (non-f) string literals blanked out."""
    return _NOT_CODE.sub(_blank, text)


def may_use_dataparallel(text: str) -> bool:
    """False only if `text` certainly has no DataParallel for dp2ddp to migrate or flag."""
    if "parallel_apply" in text and _hand_written(code_only(text)):
        return True
    if (
        "DataParallel" not in text
        and "data_parallel" not in text
        and "patch_replication_callback" not in text
    ):
        return False  # the common case: three substring searches, no regex
    if _WORD.search(text) is None and _WRAPPER.search(text) is None:
        return False  # e.g. only DistributedDataParallel
    code = code_only(text)
    if _CLASS.search(code) or _WRAPPER.search(code):
        return True
    return _FUNCTION.search(code) is not None and _MODULE.search(code) is not None


def _hand_written(code: str) -> bool:
    """`code` runs replicas with nn.parallel's parallel_apply (DataParallel by hand)."""
    return _APPLY.search(code) is not None and _MODULE.search(code) is not None
