from .scorer import *
