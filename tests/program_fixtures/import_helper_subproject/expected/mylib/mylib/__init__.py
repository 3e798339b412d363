from .loading import import_class
