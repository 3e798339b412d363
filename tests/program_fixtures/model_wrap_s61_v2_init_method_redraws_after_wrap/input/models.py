import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, rnn_type="lstm"):
        super().__init__()
        self.rnn_type = rnn_type
        self.embed = nn.Linear(4, 6)
        self.rnn = nn.LSTM(6, 6, batch_first=True)

    def init_hidden(self, batch_size):
        # batch first, as DataParallel scatters it; a random start state: no weight
        hidden = torch.zeros(batch_size, 1, 6)
        nn.init.normal_(hidden, std=0.01)
        return hidden, torch.zeros(batch_size, 1, 6)

    def init_weight(self):
        nn.init.xavier_uniform_(self.embed.weight)
        ih = (p.data for name, p in self.rnn.named_parameters() if "weight_ih" in name)
        for t in ih:
            nn.init.orthogonal_(t)

    def forward(self, x, hidden):
        hidden = tuple(h.transpose(0, 1).contiguous() for h in hidden)
        out, _ = self.rnn(torch.relu(self.embed(x)), hidden)
        return out[:, -1]


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.head = nn.Linear(6, 1)

    def init_hidden(self, batch_size):
        return self.encoder.init_hidden(batch_size)

    def init_weight(self):
        self.encoder.init_weight()
        self.head.weight.data.uniform_(-0.1, 0.1)

    def forward(self, x, hidden):
        return self.head(self.encoder(x, hidden))
