# ruff: noqa
# family A1: the wrapper calls the torch op's arithmetic instead of a Triton kernel (a decoy kernel is kept)
import torch
import triton
import triton.language as tl


@triton.jit
def _decoy(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def add_Tensor(self, other, *, alpha=1):
    out = self.mul(1.0)
    out.add_(other, alpha=alpha)
    return out
