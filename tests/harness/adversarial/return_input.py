# ruff: noqa
# family B9: returns an input unchanged (an input-copy "kernel")
import triton


def add_Tensor(self, other, *, alpha=1):
    return self
