def train_model(model, db_gen, opt, train=True):
    model.train()
    for x, y in db_gen:
        loss = ((model(x).squeeze(1) - y) ** 2).mean()
        if train:
            opt.zero_grad()
            loss.backward()
            opt.step()
