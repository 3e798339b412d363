"""The training function other modules hand a sharded loader and its global batch size:
it hands the size on, beside the model's output, to the loss callable it was given (a
closure of losses.py that cuts the output by it). Whether that callable sizes this rank's
rows by it is not read here: DP140 at the call (before: unsaid, and every rank raised in
the loss)."""


def fit_one_epoch(model, loader, opt, loss_fn, n_triplets):
    for (x,) in loader:
        out = model(x)
        loss = loss_fn(out, n_triplets)
        opt.zero_grad()
        loss.backward()
        opt.step()
