"""The wrap handed to another module's training function by keyword (stop 52 v1-A,
sooftware/char-rnnlm@fc6573b: main.py calls package/trainer.py's `supervised_train(model=
model, queue=train_queue, ...)`), whose `while True:` loop takes each batch from the queue a
producer thread fills. trainer.py wraps nothing, so its batch proof knew no wrapped model and
said nothing; every rank trained on every batch. The program tells trainer.py which of its
parameters the wrap is handed to: DP047 names the batch's flow from `queue.get()`."""
import queue

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup
from loader import Producer
from trainer import supervised_train

ddp_setup()


torch.manual_seed(0)
model = nn.Linear(4, 1)
model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = (torch.randn(16, 4), torch.randn(16))
for epoch in range(2):
    train_queue = queue.Queue(2)
    producer = Producer(data, train_queue, 4)
    producer.start()
    loss = supervised_train(model=model, queue=train_queue, optimizer=optimizer)
    producer.join()
    ddp_print("epoch %d loss %.4f" % (epoch, loss))
ddp_print("weights %.4f" % model.module.weight.sum().item())
