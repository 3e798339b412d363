"""A recurrent classifier handed the padded batch and its lengths, which forward() ignores:
it runs over every padded position. DataParallel padded the global batch once; each rank now
pads its share to its own longest item, so the positions the model sums over differ: DP127
(before: no warning, the list padding unrecognised and the lengths taken for a mask).
"""

import torch
import torch.nn as nn

from data import PAD, Texts, collate


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(20, 8, padding_idx=PAD)
        self.rnn = nn.GRU(8, 8, batch_first=True)
        self.out = nn.Linear(8, 2)

    def forward(self, tokens, lengths):
        states, _ = self.rnn(self.embed(tokens))
        return self.out(states.sum(dim=1))


torch.manual_seed(0)
model = nn.DataParallel(Classifier())
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = torch.utils.data.DataLoader(Texts(16), batch_size=8, shuffle=True, collate_fn=collate)
for epoch in range(2):
    for tokens, lengths, labels in loader:
        loss = nn.functional.cross_entropy(model(tokens, lengths), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
print("loss %.4f" % loss.item())
