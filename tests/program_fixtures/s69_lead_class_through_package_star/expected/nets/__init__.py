from .kd import *
