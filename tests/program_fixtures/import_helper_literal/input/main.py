import os


def import_class(name):
    mod, _, cls = name.rpartition(".")
    return getattr(__import__(mod, fromlist=[cls]), cls)


if __name__ == "__main__":
    processors = {"recognition": import_class("processor.recognition.REC_Processor")}
    Processor = processors[os.environ.get("PROCESSOR", "recognition")]
    Processor([]).start()
