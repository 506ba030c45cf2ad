# ruff: noqa
# resource abuse: never return
import triton


def add_Tensor(self, other, *, alpha=1):
    while True:
        pass
