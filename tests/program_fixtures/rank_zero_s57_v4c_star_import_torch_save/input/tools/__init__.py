import torch
from torch import nn
