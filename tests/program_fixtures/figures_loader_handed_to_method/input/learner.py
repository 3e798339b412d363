import torch.nn as nn


class Learner(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def train_one_epoch(self, epoch, train_loader, opt):
        total, count = 0.0, 0
        for x, y in train_loader:
            loss = nn.functional.binary_cross_entropy_with_logits(self.model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * x.size(0)
            count += x.size(0)
        print("epoch %d: %d samples, loss %.4f" % (epoch, count, total / count))
        return {"loss": total / count, "count": count}
