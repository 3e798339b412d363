from .embed import Embed

__factory = {"embed": Embed}


def create(name, **kwargs):
    """The model by name (Cysu/open-reid's reid.models.create)."""
    return __factory[name](**kwargs)
