"""Paths named inside a string a call is given: a command line's `--input=PATH`.

A library configured by one string reads the files that string names
(`spm.SentencePieceTrainer.Train(f"--input={name}_{kind}.txt --model_prefix={name} ...")`:
sooftware/nlp-tasks@bb6f65e machine_translation/utils.py:12, right after the corpus was
written to `f'{name}_{kind}.txt'`). The migration writes that corpus on rank 0 alone (every
other rank writes a scratch file), and no read of the path was seen, so no barrier: rank 1
read a file rank 0 had not written yet ("Not found: source_unigram.txt" under verify), or an
earlier run's, and would train another tokenizer, with `--check` 0.

`mentioned_forms` reads each string argument of a call as path_forms.py reads a path (its
pieces: literals, f-string parts followed to what they are bound to), cuts it at blanks, `=`,
`,` and `;` into words (each string of a list or tuple argument too: an argument vector),
and gives the form of each word that is an option's value (right after `=`: `--input=PATH`)
and holds a literal (`f"{name}_{kind}.txt"`): barriers.py matches them against the paths
rank 0 writes as it matches a read's path, so a barrier goes between (file_paths.file_path
with write=False answers them when the call reads no path argument). Prose names no path
this way (a help text, a title), nor a whole argument (a path handed to a library as itself
is file_paths.py's question), nor a call that only shows or writes text (print, logging,
`.write`, `.format`, a progress bar's description).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import name_of
from dp2ddp.transforms.rank_zero.path_forms import form_of, pieces

if TYPE_CHECKING:
    from dp2ddp.transforms.rank_zero import RankZeroOnly

#: Calls that show or write the text they are given, read no file it names.
_SHOWS = frozenset(
    {
        "print",
        "debug",
        "info",
        "warning",
        "warn",
        "error",
        "exception",
        "critical",
        "log",
        "write",
        "writelines",
        "format",
        "join",
        "add_text",
        "set_description",
        "set_postfix_str",
    }
)
#: Where a command line's words part (kept: a word after `=` is an option's value).
_BETWEEN = re.compile(r"([\s=,;]+)")


def mentioned_forms(call: cst.Call, t: RankZeroOnly) -> tuple[str, ...] | None:
    """The forms of the paths `call`'s string arguments name as a word of a longer
    string (see the module's docstring); None where they name none."""
    if name_of(call.func) in _SHOWS:
        return None
    forms: list[str] = []
    values = [arg.value for arg in call.args]
    values += [  # an argument vector: `subprocess.run([exe, f"--input={path}"])`
        element.value
        for value in values
        if isinstance(value, (cst.List, cst.Tuple))
        for element in value.elements
        if isinstance(element, cst.Element)
    ]
    for value in values:
        if not isinstance(value, (cst.FormattedString, cst.ConcatenatedString, cst.SimpleString)):
            continue
        parts = pieces(value, t)
        if parts is None:
            continue
        words: list[list[tuple[bool, str]]] = [[]]
        valued = [False]  # each word: an option's value, after `=`
        for literal, part in parts:
            if not literal:
                words[-1].append((False, part))
                continue
            chunks = _BETWEEN.split(part)  # word, separator, word, ...
            for position, chunk in enumerate(chunks):
                if position % 2:
                    words.append([])
                    valued.append("=" in chunk)
                elif chunk:
                    words[-1].append((True, chunk))
        forms += [
            form
            for w, v in zip(words, valued, strict=True)
            if v and (form := form_of(w)) is not None
        ]
    return tuple(dict.fromkeys(forms)) or None
