"""A stand-in for tqdm in the shared launch (stop 54 v2): the test environment has no tqdm.
`tqdm(iterable, ...)` yields the iterable's items as it is; the bar is not drawn."""


class tqdm:  # noqa: N801 - tqdm's own spelling
    def __init__(self, iterable=None, *args, **kwargs):
        self.iterable = iterable

    def __iter__(self):
        return iter(self.iterable)

    def __len__(self):
        return len(self.iterable)

    def set_postfix_str(self, *args, **kwargs):
        pass

    def close(self):
        pass
