"""`dp2ddp verify`: run a DataParallel script and its DDP migration, compare their updates.

Light on purpose: `dp2ddp.verify.runner` is imported inside the user's processes.
"""
