import os.path as osp
import sys


class Settings:
    here = osp.dirname(osp.abspath(__file__))
    project = osp.join(here, "..")
    batch = 8
    epochs = 2


settings = Settings()
# the trainer's folder goes on sys.path through an attribute of the settings object
sys.path.insert(0, osp.join(settings.project, "common"))
