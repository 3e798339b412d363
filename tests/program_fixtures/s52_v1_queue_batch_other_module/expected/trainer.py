import torch.nn as nn


def supervised_train(model, queue, optimizer):
    total, steps = 0.0, 0
    while True:
        inputs, targets = queue.get()
        if inputs.shape[0] == 0:
            break
        outputs = model(inputs)
        loss = nn.functional.mse_loss(outputs.squeeze(1), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
        steps += 1
    return total / steps
