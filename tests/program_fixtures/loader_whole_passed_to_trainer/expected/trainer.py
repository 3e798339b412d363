def train_model(model, db_gen, opt):
    model.train()
    steps = 0
    for x, y in db_gen:
        loss = ((model(x).squeeze(1) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        steps += 1
    return steps
