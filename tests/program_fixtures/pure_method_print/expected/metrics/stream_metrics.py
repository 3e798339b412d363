"""Running segmentation metrics (VainF/DeepLabV3Plus-Pytorch's metrics/stream_metrics.py)."""
import numpy as np


class StreamSegMetrics:
    def __init__(self, n_classes):
        self.n_classes = n_classes
        self.confusion_matrix = np.zeros((n_classes, n_classes))

    def update(self, label_trues, label_preds):
        for lt, lp in zip(label_trues, label_preds):
            self.confusion_matrix += np.bincount(
                self.n_classes * lt + lp, minlength=self.n_classes**2
            ).reshape(self.n_classes, self.n_classes)
        return self.confusion_matrix.sum()

    def get_results(self):
        hist = self.confusion_matrix
        acc = np.diag(hist).sum() / max(hist.sum(), 1)
        return {"Overall Acc": acc, "Class IoU": {}}

    @staticmethod
    def to_str(results):
        string = "\n"
        for k, v in results.items():
            if k != "Class IoU":
                string += "%s: %f\n" % (k, v)
        return string
