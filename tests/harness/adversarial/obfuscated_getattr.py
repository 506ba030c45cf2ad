# ruff: noqa
# family E31: hide the banned torch call behind getattr and an alias
import torch as t
import triton


def add_Tensor(self, other, *, alpha=1):
    fn = getattr(t, "ad" + "d")
    return fn(self, other, alpha=alpha)
