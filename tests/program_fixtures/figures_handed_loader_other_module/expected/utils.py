from _dp2ddp import ddp_discard_path, ddp_is_main, ddp_print

class Logger(object):
    def __init__(self, output_name):
        self.log_file = open(output_name if ddp_is_main() else ddp_discard_path(), "w")

    def write(self, msg):
        self.log_file.write(msg + "\n")
        self.log_file.flush()
        ddp_print(msg)
