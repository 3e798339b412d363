def make_summary(metrics):
    summary = {}  # its own dict: stores into it change nothing shared
    for k, v in metrics.items():
        if k.isdigit():
            continue
        summary[k] = round(v, 4)
    return " | ".join(f"{k} = {v:.4f}" for k, v in summary.items())


def step_and_read(scheduler):
    scheduler.step()
    return scheduler.get_last_lr()[0]


def shout(text):
    return text.upper()
