"""Options whose run name and save folder are stamped with the clock, for another module
to make (issue 29; wouterkool/attention-learn-to-route@c9abf41's options.py)."""

import argparse
import os
import time


def get_options(args=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--run_name", default="run")
    parser.add_argument("--output_dir", default="outputs")
    opts = parser.parse_args(args)
    if os.environ.get("RANK", "0") == os.environ.get("E2E_SLOW_RANK"):
        time.sleep(1.1)  # this rank reads the clock late
    opts.run_name = "{}_{}".format(opts.run_name, time.strftime("%Y%m%dT%H%M%S"))
    opts.save_dir = os.path.join(opts.output_dir, opts.run_name)
    return opts
