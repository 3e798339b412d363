"""The experiment's settings (a YAML file in a real project; fixed here)."""

from types import SimpleNamespace

cfg = SimpleNamespace(
    GPUS=(0, 1),
    BATCH_SIZE_PER_GPU=16,
    EPOCHS=3,
    LR=0.05,
    PRINT_FREQ=4,
)
