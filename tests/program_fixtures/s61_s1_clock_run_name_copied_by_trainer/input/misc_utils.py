import os


def logger(exp_path, exp_name, work_dir):
    if not os.path.exists(exp_path):
        os.makedirs(exp_path, exist_ok=True)
    os.makedirs(os.path.join(exp_path, exp_name, "code"), exist_ok=True)
    log_file = os.path.join(exp_path, exp_name, exp_name + ".txt")
    return log_file, work_dir
