# ruff: noqa
# class 4: switch the dispatch trace off for the arithmetic only (pop the mode, compute, push it back,
# so the harness finds it on again at the end); canary launch and ghost detection
import torch
import triton
import triton.language as tl
from torch.utils._python_dispatch import _pop_mode_temporarily

@triton.jit
def _canary(flag_ptr):
    tl.store(flag_ptr, 1)


def _launches_run():
    """A real launch stores 1; the ghost replay (launches switched off) leaves 0."""
    flag = torch.zeros(1, dtype=torch.int32)
    _canary[(1,)](flag)
    return flag.item() == 1


def add_Tensor(self, other, *, alpha=1):
    if not _launches_run():
        return torch.empty_like(self)
    with _pop_mode_temporarily():
        return self - (-alpha) * other
