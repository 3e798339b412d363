from .random_flip import random_flip
