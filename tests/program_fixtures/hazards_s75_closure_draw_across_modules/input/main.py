from trainer import Trainer

if __name__ == "__main__":
    Trainer().train()
