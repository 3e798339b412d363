from _dp2ddp import ddp_print

def log_values(cost, step):
    avg_cost = cost.mean().item()
    ddp_print("step: {}, avg_cost: {:.6f}, rows: {}".format(step, avg_cost, len(cost)))


def log_running(step, mean):
    _show(f"running {step}: {mean:.6f}")


def log_epoch(epoch, total, seen):
    _show(f"epoch {epoch}: mean cost {total / seen:.6f} over {seen} rows")


def _show(text):
    ddp_print(text)
