"""Run at import: the config and its logger, and the parameters logged through a handed
log method (round 13 v4-A, khanrc/pt.darts@48e7137's augment.py module level, here in a
module the entry imports before anything of its own runs)."""
import os

import utils
from config import Config

config = Config()
os.makedirs(config.path, exist_ok=True)
logger = utils.get_logger(os.path.join(config.path, "train.log"))
config.print_params(logger.info)
