"""Programs, not files: an entry script and the project modules it imports, migrated as one.

discovery  entry -> the project modules it imports (ast, fast), project root, module names
analysis   cross-module facts: is this a DataParallel program (the program-wide gate)
context    ProgramContext, what `migrate_source` is told about the file's place in a program
runtime    the generated helpers module (`_dp2ddp.py`) and the names modules import from it
folder     `dp2ddp migrate DIR`: the entry scripts of a folder and the modules no entry reaches
migrate    migrate a program (or several) all or nothing; used by the CLI and by verify

This package's __init__ imports nothing, so transforms can import `context` without a cycle.
"""
