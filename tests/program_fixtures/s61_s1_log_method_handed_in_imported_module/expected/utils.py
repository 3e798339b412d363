import logging


def get_logger(file_path):
    logger = logging.getLogger("s61_s1_program")
    handler = logging.FileHandler(file_path)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger.addHandler(handler)
    logger.addHandler(logging.StreamHandler())
    logger.setLevel(logging.INFO)
    return logger
