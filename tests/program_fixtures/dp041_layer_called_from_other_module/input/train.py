import torch
import torch.nn as nn

from network import Decoder

model = nn.DataParallel(Decoder(8))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = torch.utils.data.TensorDataset(torch.randn(16, 8), torch.randint(0, 3, (16,)))
loader = torch.utils.data.DataLoader(data, batch_size=4, shuffle=True)
for x, y in loader:
    loss = nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
