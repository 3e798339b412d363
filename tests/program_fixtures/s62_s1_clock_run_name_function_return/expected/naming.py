"""The run's name, made by a function from the config's stamp."""


def run_name(c):
    return "tiny_" + c.stamp
