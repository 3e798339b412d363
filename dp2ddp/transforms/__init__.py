"""One transform per module, composed in a fixed order by `dp2ddp.migrate.pipeline`."""
