"""A model built from a custom layer that owns its weights as nn.Parameter.

From "How can PyTorch DataParallel be used with a custom model?": because MyCustomLayer
registers `weight` and `bias` as nn.Parameter, DataParallel (and DDP) replicate and update
them like any built-in layer. The model is wrapped unconditionally, as many scripts do.
"""

import torch
import torch.nn as nn
from torch.nn import DataParallel
from torch.utils.data import DataLoader, TensorDataset


class MyCustomLayer(nn.Module):
    def __init__(self, in_features, out_features):
        super(MyCustomLayer, self).__init__()
        self.weight = nn.Parameter(torch.randn(in_features, out_features) * 0.1)
        self.bias = nn.Parameter(torch.zeros(out_features))

    def forward(self, x):
        return torch.mm(x, self.weight) + self.bias


class MyModel(nn.Module):
    def __init__(self, input_size, hidden_size, num_classes):
        super(MyModel, self).__init__()
        self.custom_layer = MyCustomLayer(input_size, hidden_size)
        self.relu = nn.ReLU()
        self.linear = nn.Linear(hidden_size, num_classes)

    def forward(self, x):
        x = self.custom_layer(x)
        x = self.relu(x)
        x = self.linear(x)
        return x


def make_blobs(num_samples, input_size, num_classes):
    """Gaussian blobs around random class centres: an easy, learnable classification task."""
    centres = torch.randn(num_classes, input_size) * 2.0
    labels = torch.randint(0, num_classes, (num_samples,))
    points = centres[labels] + torch.randn(num_samples, input_size)
    return TensorDataset(points, labels)


torch.manual_seed(0)
input_size, hidden_size, num_classes = 10, 32, 3
device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")

dataset = make_blobs(600, input_size, num_classes)
loader = DataLoader(dataset, batch_size=64, shuffle=True, drop_last=True)

model = MyModel(input_size, hidden_size, num_classes)
model = DataParallel(model)  # use every visible GPU
model.to(device)

criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

for epoch in range(4):
    total_loss, correct, seen = 0.0, 0, 0
    for inputs, labels in loader:
        inputs, labels = inputs.to(device), labels.to(device)
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        total_loss += loss.item() * inputs.size(0)
        correct += (outputs.argmax(dim=1) == labels).sum().item()
        seen += inputs.size(0)
    print(f"epoch {epoch} loss {total_loss / seen:.4f} train acc {correct / seen:.3f}")

custom = model.module.custom_layer
print(f"custom layer weight norm {custom.weight.norm().item():.4f}")
print(f"final loss {loss.item():.4f}")
