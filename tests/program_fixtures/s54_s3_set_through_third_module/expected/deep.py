# One module further than dp2ddp follows: entry -> deep -> mid -> utils -> label_io.
import mid


def labels():
    return mid.labels()
