"""Benchmark: folder mode (`dp2ddp migrate --check DIR`) on a research monorepo and on torch.

    python benchmarks/bench_project.py [--shapes half,mono,double,torch] [--repeat 1]
                                       [--root TORCH_DIR] [--keep DIR] [--jobs N]

Shapes, each written to a temporary folder (or under --keep DIR, to compare outputs):
  half    the monorepo at half size: 20 model modules, 5 entry scripts
  mono    a `proj/` package (`__init__`, `utils`, `data` and 40 small model modules) and
          10 entry scripts at the root that import every model, wrap with DataParallel and
          train on proj.data's loader: 53 files
  double  the monorepo twice as large: 80 models, 20 entries
  torch   the installed torch package's *.py files, copied (2,000+ files, a few dozen of
          which mention DataParallel)

For each: the wall time of `python -m dp2ddp migrate --check --diff -q --jobs N DIR` in a fresh
process (interpreter start included; best of --repeat), its peak memory (max RSS of the
command and its workers, from wait4), and the **floor**: libcst parsing and printing back the
files that must be read with libcst (every file of a monorepo: all are modules of
DataParallel programs; in torch the files that mention DataParallel), in one process. The
growth factor is double / mono. The diff output (and stderr) of each run is written next to
the shape when --keep is given, so that two versions of dp2ddp can be compared byte for byte.
Not a test: timings depend on the machine. Figures: docs/performance.md.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import libcst as cst

MODEL = '''"""Model {index}: a small network."""

import torch
import torch.nn as nn

from proj.utils import count_parameters


class Model{index}(nn.Module):
    def __init__(self, width=16):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, width), nn.ReLU(), nn.Linear(width, 2))
        self.scale = {index} + 1

    def forward(self, x):
        return self.body(x) * self.scale


def build_{index}(device):
    model = Model{index}().to(device)
    print("model {index}:", count_parameters(model), "parameters")
    return model


def test():
    model = Model{index}()
    print(model(torch.randn(2, 8)).shape)
'''

UTILS = '''"""Helpers shared by the models."""


def count_parameters(model):
    return sum(p.numel() for p in model.parameters())


def learning_rate(base, epoch):
    return base * (0.5 ** (epoch // 10))
'''

DATA = '''"""The training data."""

import torch
from torch.utils.data import DataLoader, TensorDataset


def train_loader(batch_size):
    data = TensorDataset(torch.randn(256, 8), torch.randint(0, 2, (256,)))
    return DataLoader(data, batch_size=batch_size, shuffle=True, num_workers=2)
'''

ENTRY = '''"""Train {models} models on proj.data (entry {index})."""

import argparse

import torch
import torch.nn as nn

from proj.data import train_loader
from proj.utils import learning_rate
{imports}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--lr", type=float, default=0.1)
    args = parser.parse_args()
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    models = [{builds}]
    model = nn.ModuleList(models)
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    loader = train_loader(64)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            outputs = [m(x) for m in (model.module if hasattr(model, "module") else model)]
            loss = sum(nn.functional.cross_entropy(o, y) for o in outputs)
            loss.backward()
            optimizer.step()
        print(f"epoch {{epoch}} lr {{learning_rate(args.lr, epoch)}} loss {{loss.item():.4f}}")
    torch.save(model.state_dict(), "entry_{index}.pt")


if __name__ == "__main__":
    main()
'''

MONOREPO = {"half": (20, 5), "mono": (40, 10), "double": (80, 20)}


def write_monorepo(folder: Path, models: int, entries: int) -> list[Path]:
    """The monorepo shape; returns its files (all of them are read with libcst)."""
    proj = folder / "proj"
    proj.mkdir(parents=True)
    (folder / "pyproject.toml").write_text('[project]\nname = "proj"\n')
    files = {proj / "__init__.py": "", proj / "utils.py": UTILS, proj / "data.py": DATA}
    for index in range(models):
        files[proj / f"model_{index:02d}.py"] = MODEL.format(index=index)
    imports = "\n".join(f"from proj.model_{i:02d} import build_{i}" for i in range(models))
    builds = ", ".join(f"build_{i}(device)" for i in range(models))
    for index in range(entries):
        text = ENTRY.format(index=index, models=models, imports=imports, builds=builds)
        files[folder / f"train_{index}.py"] = text
    for path, text in files.items():
        path.write_text(text)
    return sorted(files)


def torch_dir() -> Path:
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("torch is not installed; pass --root")
    return Path(next(iter(spec.submodule_search_locations)))


def copy_torch(source: Path, folder: Path) -> list[Path]:
    """The *.py files of `source` under folder/torch; returns those mentioning DataParallel."""
    floor: list[Path] = []
    for path in sorted(source.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        target = folder / "torch" / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        if "DataParallel" in path.read_text(encoding="utf-8", errors="replace"):
            floor.append(target)
    return floor


def floor_seconds(files: list[Path]) -> tuple[float, float]:
    """(wall s, CPU s) of libcst's parse and print of `files`, in this process."""
    texts = [p.read_text(encoding="utf-8") for p in files]
    start, cpu = time.perf_counter(), time.process_time()
    for text in texts:
        cst.parse_module(text).code  # noqa: B018 - the round trip is the measured work
    return time.perf_counter() - start, time.process_time() - cpu


def run_cli(folder: Path, jobs: int) -> tuple[float, float, float, int, str, str]:
    """(wall s, CPU s, peak RSS MiB, exit code, stdout, stderr) of one folder-mode run (CPU:
    the command and its workers, user + system: the steadier figure on a shared machine)."""
    command = [sys.executable, "-m", "dp2ddp", "migrate", "--check", "--diff", "--no-color"]
    command += ["-q", "--jobs", str(jobs), "."]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        process = subprocess.Popen(command, cwd=folder, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        cpu = usage.ru_utime + usage.ru_stime
        return wall, cpu, usage.ru_maxrss / 1024, process.returncode, out.read(), err.read()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shapes", default="half,mono,double,torch")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--root", type=Path, default=None, help="torch package folder")
    parser.add_argument("--keep", type=Path, default=None, help="write the shapes here")
    args = parser.parse_args()
    shapes = args.shapes.split(",")
    print(f"python {platform.python_version()}, {os.cpu_count()} cores, --jobs {args.jobs}")
    print(
        "| shape | files | floor files | floor wall s | floor CPU s | wall s | CPU s "
        "| wall / floor | CPU / floor | peak MiB | exit |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    cpus: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as temp:
        base = args.keep or Path(temp)
        for shape in shapes:
            folder = base / shape
            if folder.exists():
                shutil.rmtree(folder)
            folder.mkdir(parents=True)
            if shape == "torch":
                floor_files = copy_torch(args.root or torch_dir(), folder)
            else:
                floor_files = write_monorepo(folder, *MONOREPO[shape])
            files = sum(1 for _ in folder.rglob("*.py"))
            floor, floor_cpu = min(floor_seconds(floor_files) for _ in range(args.repeat))
            runs = [run_cli(folder, args.jobs) for _ in range(args.repeat)]
            wall, cpu, peak, code, out, err = min(runs, key=lambda r: r[1])
            cpus[shape] = cpu
            if args.keep is not None:
                (base / f"{shape}.diff").write_text(out)
                (base / f"{shape}.stderr").write_text(err)
            print(
                f"| {shape} | {files} | {len(floor_files)} | {floor:.2f} | {floor_cpu:.2f} "
                f"| {wall:.2f} | {cpu:.2f} | {wall / floor:.2f} | {cpu / floor_cpu:.2f} "
                f"| {peak:.0f} | {code} |",
                flush=True,
            )
    if "mono" in cpus and "double" in cpus:
        print(f"growth when the monorepo doubles (CPU): {cpus['double'] / cpus['mono']:.2f}x")
    if "half" in cpus and "mono" in cpus:
        print(f"growth from half to mono (CPU): {cpus['mono'] / cpus['half']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
