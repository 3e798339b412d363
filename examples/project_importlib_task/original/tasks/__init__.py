"""Tasks, picked by name."""
