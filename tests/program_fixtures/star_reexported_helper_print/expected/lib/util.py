def make_summary(metrics):
    return " | ".join(f"{k} = {v:.4f}" for k, v in metrics.items())


def step_and_read(scheduler):
    scheduler.step()
    return scheduler.get_last_lr()[0]


def shout(text):
    return text.upper()
