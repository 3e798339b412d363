"""`python -m app.train` from this folder, for a launcher that runs scripts by path."""
import runpy

runpy.run_module("app.train", run_name="__main__")
