"""Re-exports the helpers by a star import (GwcNet's `utils/__init__.py` layout)."""

from utils.experiment import *
