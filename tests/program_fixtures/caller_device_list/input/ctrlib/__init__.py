from .model import TinyCTR

__all__ = ["TinyCTR"]
