"""Reads and writes of files through chains of the program's functions (stop 53 s2):
file_calls.file_calls' entries under a parameter through plain bindings, dict items and
comprehensions, with the kind of file; the probes of a file; the links joined for the
program (path_chains.chained)."""

from __future__ import annotations

import ast
import textwrap

from dp2ddp.transforms._support.ast_nodes import import_table, resolved_name
from dp2ddp.transforms.rank_zero.file_calls import file_calls
from dp2ddp.transforms.rank_zero.path_chains import chained


def _calls(source: str) -> tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str]]:
    tree = ast.parse(textwrap.dedent(source))
    table = import_table(tree, "m", False)
    return file_calls(tree, lambda f: resolved_name(f, table) or getattr(f, "id", ""))


def test_a_write_under_a_dict_comprehensions_item_is_under_the_parameter() -> None:
    readers, writers, _, _ = _calls(
        """
        import os
        import numpy as np

        def save_model_predictions(p, values):
            save_dirs = {t: os.path.join(p["save_dir"], t) for t in p["tasks"]}
            for task in p["tasks"]:
                for i, v in enumerate(values):
                    np.save(os.path.join(save_dirs[task], "%d.npy" % i), v)
        """
    )
    assert writers == {"save_model_predictions:0:p:.npy"}
    assert not readers


def test_a_local_bound_under_the_parameter_is_read_with_its_kind() -> None:
    readers, _, _, _ = _calls(
        """
        import os
        from PIL import Image

        def eval_semseg(loader, folder):
            for sample in loader:
                filename = os.path.join(folder, sample["name"] + ".png")
                Image.open(filename)
        """
    )
    assert readers == {"eval_semseg:1:folder:.png"}


def test_a_probe_of_the_file_system_is_a_read() -> None:
    readers, _, _, _ = _calls(
        """
        import os

        def exported(p, epoch):
            return os.path.isfile(os.path.join(p["out"], "w_%d.npy" % epoch))

        def listed(folder):
            return os.listdir(folder)
        """
    )
    assert readers == {"exported:0:p:.npy", "listed:0:folder"}


def test_a_parameter_handed_on_is_a_link() -> None:
    _, _, _, forwards = _calls(
        """
        import os

        def score_all(p):
            save_dir = p["save_dir"]
            return score_task(save_dir=save_dir, task="a")

        def score_task(save_dir, task):
            return score_folder(os.path.join(save_dir, task))
        """
    )
    assert "score_all:0:p<score_task@save_dir" in forwards
    assert "score_task:0:save_dir<score_folder@0" in forwards
    assert not any("<join@" in link for link in forwards)  # a library's: no link


def test_links_join_readers_across_modules_with_their_kind() -> None:
    readers = [frozenset(), frozenset(), frozenset({"score_folder:0:folder:.npy"})]
    forwards = [
        frozenset({"main:0:cfg<score_all@0"}),
        frozenset({"score_all:0:p<score_task@save_dir", "unrelated:0:x<other@0"}),
        frozenset({"score_task:0:save_dir<score_folder@0"}),
    ]
    joined = chained(readers, forwards)
    assert joined[1] == {"score_all:0:p:.npy"}
    assert joined[2] == {"score_folder:0:folder:.npy", "score_task:0:save_dir:.npy"}
    assert joined[0] == {"main:0:cfg:.npy"}  # three links deep


def test_links_stop_at_the_depth() -> None:
    readers = [frozenset({"f0:0:a"})]
    forwards = [frozenset({f"f{i + 1}:0:a<f{i}@0" for i in range(5)})]
    joined = chained(readers, forwards)[0]
    assert joined == {"f0:0:a", "f1:0:a", "f2:0:a", "f3:0:a"}


def test_a_method_writes_at_what_its_object_was_built_with() -> None:
    """Stop 81 (round 33, char-cnn's two modules): `Prep(out).run()` writes `out`; a
    dataset reading `self.source` in its `__init__` reads its parameter."""
    readers, writers, _, forwards = _calls(
        """
        def write_rows(path, rows):
            with open(path, "w") as out:
                out.write(str(rows))

        class Prep:
            def __init__(self, target, count=3):
                self.target = target
                self.count = count

            def run(self):
                write_rows(self.target, list(range(self.count)))

            def save(self):
                open(self.target + ".bak", "w").write("x")

        class Rows:
            def __init__(self, source):
                self.source = source
                with open(self.source) as table:
                    self.rows = table.read()

        class Moved:
            def __init__(self, target):
                self.target = target

            def retarget(self, other):
                self.target = other

            def run(self):
                open(self.target, "w").write("x")
        """
    )
    assert readers == {"Rows:0:source"}
    assert writers == {"write_rows:0:path", "Prep.save:0:target:.bak"}
    assert "Prep.run:0:target<write_rows@0" in forwards
    assert not any(entry.startswith("Moved.") for entry in writers | forwards)
    joined = chained([writers], [forwards])[0]
    assert "Prep.run:0:target" in joined
