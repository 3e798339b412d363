from .log_utils import *  # noqa: F403
