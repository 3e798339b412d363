"""The package re-exports its data module's loader class under another name."""

from .data import DataLoader as Loader
from .data import make_dataset
