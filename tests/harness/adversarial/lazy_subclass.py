# ruff: noqa
# family B14: return a Tensor subclass whose comparison does the work later
import torch
import triton


class Lazy(torch.Tensor):
    pass


def add_Tensor(self, other, *, alpha=1):
    return torch.empty_like(self).as_subclass(Lazy)
