"""`python -m dp2ddp` runs the CLI."""

from dp2ddp.cli import main

if __name__ == "__main__":
    main()
