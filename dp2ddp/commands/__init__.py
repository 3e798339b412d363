"""One module per CLI command; each defines a click command of the same name."""
