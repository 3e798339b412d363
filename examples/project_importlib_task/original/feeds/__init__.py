"""Data providers, named in task configs."""
