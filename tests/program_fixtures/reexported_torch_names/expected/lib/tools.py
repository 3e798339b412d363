from torch import save
