import torch

from noise import gen_noise


def get_denoise_loss(scale):
    def denoise_loss(net, batch, flags):
        level = torch.rand(batch.size(0), 1)
        z = gen_noise(batch, flags)
        noisy = batch + scale * level * z
        return (net(noisy) - batch).pow(2).mean()

    return denoise_loss
