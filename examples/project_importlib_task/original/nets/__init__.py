"""Networks, named in task configs."""
