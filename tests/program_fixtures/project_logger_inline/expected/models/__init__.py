from .net import *
