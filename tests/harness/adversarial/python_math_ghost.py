# ruff: noqa
# families A4/A5: a decoy kernel is launched, but the answer is computed in Python from .tolist()
# (no aten arithmetic for the trace to see); switching Triton off leaves the output correct
import torch
import triton
import triton.language as tl


@triton.jit
def _decoy(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.load(x_ptr + offs, mask=offs < n)


def add_Tensor(self, other, *, alpha=1):
    _decoy[(1,)](self, self.numel(), BLOCK=64)
    a = self.contiguous().view(-1).tolist()
    b = other.contiguous().view(-1).tolist()
    flat = torch.tensor([x + alpha * y for x, y in zip(a, b)], dtype=self.dtype)
    return flat.view(self.shape)
