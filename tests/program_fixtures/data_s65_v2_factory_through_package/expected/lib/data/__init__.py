from .build import make_loader
