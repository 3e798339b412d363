from .device import Mover, bare
