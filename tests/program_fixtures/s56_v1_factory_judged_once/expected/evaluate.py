import torch

import loaders


def evaluate(model, batch_size):
    model.eval()
    # dp2ddp: DP015, DP084
    gallery = loaders.get_loader("gallery", batch_size, shuffle=False, ddp_shard=False)
    # dp2ddp: DP015, DP084
    query = loaders.get_loader("query", batch_size, shuffle=False, ddp_shard=False)
    total = 0.0
    with torch.no_grad():
        for x, _ in gallery:
            total += model(x).sum().item()
        for x, _ in query:
            total += model(x).sum().item()
    model.train()
    return total, loaders.first_items(gallery, query)
