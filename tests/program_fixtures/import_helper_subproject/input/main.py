from mylib import import_class

if __name__ == "__main__":
    Trainer = import_class("tasks.classify.Trainer")
    Trainer(epochs=2).start()
