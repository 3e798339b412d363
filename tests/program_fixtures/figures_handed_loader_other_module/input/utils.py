class Logger(object):
    def __init__(self, output_name):
        self.log_file = open(output_name, "w")

    def write(self, msg):
        self.log_file.write(msg + "\n")
        self.log_file.flush()
        print(msg)
