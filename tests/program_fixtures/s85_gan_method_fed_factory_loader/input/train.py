# A GAN's trainer method draws the latent rows for each batch of a loader the entry hands
# it, built sharded by a factory of a third module: drawn as DataParallel drew them, the
# global batch's rows on one stream, each rank keeping its own (before: the method's loop
# was not known to go through this rank's share, the batch was split again at run time
# and every rank drew the same rows, no word).
import torch
import torch.nn as nn


def main():
    from gans.loading import get_data_loader, make_images
    from gans.trainer import PairGAN

    torch.manual_seed(0)
    data = get_data_loader(make_images(16), 16)
    gen = nn.Sequential(nn.Linear(4, 6))
    dis = nn.Sequential(nn.Linear(6, 1))
    gan = PairGAN(gen, dis, 4)
    gen_optim = torch.optim.SGD(gan.gen.parameters(), lr=0.1)
    dis_optim = torch.optim.SGD(gan.dis.parameters(), lr=0.1)
    gan.train(data=data, gen_optim=gen_optim, dis_optim=dis_optim, epochs=3)
    total = sum(p.sum().item() for p in list(gen.parameters()) + list(dis.parameters()))
    print(f"PARAMSUM {total:.6f}")


if __name__ == "__main__":
    main()
