from .synthetic import KeypointSet  # noqa: F401
