"""The language model's batching helpers, in a module of their own."""


def get_batch(src, i, n=8):
    return src[i : i + n], src[i + 1 : i + 1 + n]


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    return data.narrow(0, 0, nbatch * bsz).view(bsz, -1).t().contiguous()
