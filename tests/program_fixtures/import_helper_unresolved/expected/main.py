import os


def import_class(name):
    mod, _, cls = name.rpartition(".")
    return getattr(__import__(mod, fromlist=[cls]), cls)


if __name__ == "__main__":
    processors = {"recognition": import_class(os.environ["PROCESSOR_CLASS"])}
    Processor = processors[os.environ.get("PROCESSOR", "recognition")]
    Processor([]).start()
