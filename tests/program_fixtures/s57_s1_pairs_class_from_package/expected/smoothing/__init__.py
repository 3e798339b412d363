# The package offers its modules' classes: one by a star import, one renamed.
from .ops import *
from .blend import Blend as Blending
