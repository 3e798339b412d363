"""ajbrock/BigGAN-PyTorch@9845943's utils.toggle_grad: switches a network's gradients."""


def toggle_grad(net, on):
    for p in net.parameters():
        p.requires_grad = on
