from .base_trainer import BaseTrainer
