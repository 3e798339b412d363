import importlib
import json
import sys


def main():
    with open(sys.argv[1]) as handle:
        config = json.load(handle)
    trainer = importlib.import_module(config["trainer"])
    trainer.fit(config)


if __name__ == "__main__":
    main()
