import torch

from _dp2ddp import ddp_per_rank_batch, ddp_print


def fit_one_epoch(D_train, D, opt, bce, epoch, gen, batch_size):
    for iteration, (real,) in enumerate(gen):
        y_real, y_fake = torch.ones(ddp_per_rank_batch(batch_size)), torch.zeros(
            ddp_per_rank_batch(batch_size)
        )
        opt.zero_grad()
        loss = bce(D_train(real).view(-1), y_real) + bce(D_train(real * 0.5).view(-1), y_fake)
        loss.backward()
        opt.step()
    ddp_print("epoch %d weights %.4f" % (epoch, D[0].weight.sum().item()))
