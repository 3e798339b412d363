from .util import *  # noqa: F403

LAST = None


def shout(text):
    """The package's own `shout` (it records the text): it wins over util's pure one."""
    global LAST
    LAST = text
    return text.upper()
