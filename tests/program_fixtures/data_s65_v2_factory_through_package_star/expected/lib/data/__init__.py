from .build import *
