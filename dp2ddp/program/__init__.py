"""Programs, not files: an entry script and the project modules it imports, migrated as one.

project     the project model of a run: each file read once, each module analysed once
discovery   entry -> the project modules it imports (ast import scan, one import graph)
analysis    the program-wide DataParallel gate (the per-file detector on each module)
uniformity  cross-module rank-independence answers (facts.Uniformity)
migrate     migrate a program (or several) all or nothing; used by the CLI and by verify
folder      `dp2ddp migrate DIR`: the entry scripts of a folder and the modules no entry reaches

What a module is told about its program is one value, dp2ddp/facts.py's ProgramFacts.
Layers import downward: commands -> program -> migrate (engine) -> transforms -> facts.
"""
