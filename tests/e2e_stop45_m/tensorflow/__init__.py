"""A stand-in for TensorFlow 2's summary API (tests only: tensorflow is not installed).

`summary.create_file_writer(logdir, filename_suffix=...)` makes the folder and names an
events file by the process id, as TensorFlow does; `summary.scalar(...)` under
`writer.as_default()` appends one line to it.
"""

from tensorflow import summary

__all__ = ["summary"]
