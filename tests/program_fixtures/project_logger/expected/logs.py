import logging
import logging.config

CONFIG = {
    "version": 1,
    "formatters": {"short": {"format": "%(name)s: %(message)s"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "short", "stream": "ext://sys.stdout"}
    },
    "root": {"level": "INFO", "handlers": ["console"]},
}


def setup_logging():
    logging.config.dictConfig(CONFIG)


def get_logger(name):
    return logging.getLogger(name)
