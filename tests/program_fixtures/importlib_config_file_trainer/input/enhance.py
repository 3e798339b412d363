"""Another program of the folder: its configuration names the model only, never the trainer."""
import json

import torch

from util.build import initialize

config = json.load(open("config/enhance.json"))
model = initialize(config["model"])
with torch.no_grad():
    print("enhanced", model(torch.ones(2, 1)).sum().item())
