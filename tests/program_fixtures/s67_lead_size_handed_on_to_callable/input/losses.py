def triplet_loss(margin=0.2):
    def _loss(emb, n):
        anchor, positive, negative = emb[:n], emb[n : 2 * n], emb[2 * n :]
        gap = (anchor - positive).pow(2).sum(1) - (anchor - negative).pow(2).sum(1) + margin
        return gap.clamp(min=0).mean()

    return _loss
