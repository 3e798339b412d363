"""The program's own TensorBoard logger over TensorFlow 2's summary writer."""

import os

import tensorflow as tf

from _dp2ddp import ddp_discard_dir, ddp_is_main


class Logger(object):
    def __init__(self, log_dir, name=None):
        if name is None:
            name = "temp"
        self.name = name
        if name is not None:
            try:
                os.makedirs(os.path.join(log_dir, name), exist_ok=True)
            except:  # noqa: E722
                pass
            self.writer = tf.summary.create_file_writer(
                os.path.join(log_dir, name) if ddp_is_main() else ddp_discard_dir(),
                filename_suffix=name,
            )
        else:
            self.writer = tf.summary.create_file_writer(
                log_dir if ddp_is_main() else ddp_discard_dir(), filename_suffix=name
            )

    def scalar_summary(self, tag, value, step):
        with self.writer.as_default():
            tf.summary.scalar(name=tag, data=value, step=step)
