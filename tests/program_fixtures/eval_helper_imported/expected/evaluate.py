"""Pattern: clovaai/deep-text-recognition-benchmark@e2117f2. validation() lives in this
module beside its own evaluation loader (test()), and train.py imports it and passes its
whole validation loader. Sums reduced inside validation() would be multiplied by the number
of ranks for train.py's call (the printed sample count and norm doubled), so nothing is
reduced: this module's loader stays whole too (DP015)."""

import torch
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_same_random, ddp_setup


# dp2ddp: DP015 evaluation metrics not reduced
def validation(model, criterion, evaluation_loader):
    n_correct = 0
    norm_distance = 0.0
    loss_sum = 0.0
    length_of_data = 0
    for images, labels in evaluation_loader:
        batch_size = images.size(0)
        length_of_data = length_of_data + batch_size
        with torch.no_grad():
            preds = model(images)
        loss_sum += criterion(preds, labels).item() * batch_size
        for pred, gt in zip(preds.argmax(1).tolist(), labels.tolist()):
            if pred == gt:
                n_correct += 1
            norm_distance += 1 - abs(pred - gt) / 3
    accuracy = n_correct / float(length_of_data) * 100
    norm_distance = norm_distance / float(length_of_data)
    return loss_sum / length_of_data, accuracy, norm_distance, length_of_data


def test():
    torch.manual_seed(1)
    model = DistributedDataParallel(
        torch.nn.Linear(6, 4).to(DEVICE), device_ids=DEVICE_IDS
    )
    with ddp_same_random():
        data = TensorDataset(torch.randn(26, 6), torch.randint(0, 4, (26,)))
    evaluation_loader = DataLoader(data, batch_size=8, shuffle=False)
    model.eval()
    ddp_print("test", validation(model, torch.nn.CrossEntropyLoss(), evaluation_loader))


if __name__ == "__main__":
    ddp_setup()
    test()
