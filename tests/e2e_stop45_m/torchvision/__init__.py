"""Stand-in for torchvision in the round classes' launch (the suite's venv has none)."""
