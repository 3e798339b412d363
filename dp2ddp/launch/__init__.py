"""Launch scripts for the migrated program (torchrun, multi-node, SLURM)."""
