def lr_for(batch_size):
    return 0.01 * batch_size / 32
