"""A small training package: the Trainer (engine) and its data (data)."""
