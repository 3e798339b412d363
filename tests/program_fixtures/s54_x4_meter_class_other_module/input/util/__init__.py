"""Meters of the package, re-exported (face.evoLVe.PyTorch imports them from util.utils)."""

from .meters import BatchMeter as StepMeter  # noqa: F401
