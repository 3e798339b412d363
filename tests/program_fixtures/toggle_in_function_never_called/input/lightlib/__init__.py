from .util import DictAction, IO
