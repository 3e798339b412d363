"""The step, as BigGAN's train_fns.GAN_training_function builds it: a closure over the
networks it is given, freezing the critic (utils.toggle_grad) in the generator's step."""
import utils


def train_epoch(netG, netD, opt_g, opt_d, loader):
    def step(x, z):
        utils.toggle_grad(netD, True)
        d_loss = netD(netG(z).detach()).mean() - netD(x).mean()
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        utils.toggle_grad(netD, False)
        g_loss = -netD(netG(z)).mean()
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()

    for (x,) in loader:
        step(x, x[:, :4] * 0.5)
