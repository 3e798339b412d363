import utils


def labels():
    return utils.get_labels()
