from .net import *
from .big import *
