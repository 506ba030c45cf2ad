# ruff: noqa
# family B8: compute the right answer, then wipe an input (a later reference on it would be trivial)
import torch
import triton
import triton.language as tl


@triton.jit
def _add_then_wipe(a_ptr, b_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (a + alpha * b).to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(b_ptr + offs, tl.zeros_like(b).to(b_ptr.dtype.element_ty), mask=mask)


def add_Tensor(self, other, *, alpha=1):
    a, b = self.contiguous(), other.contiguous()
    out = torch.empty_like(a)
    _add_then_wipe[(triton.cdiv(a.numel(), 1024),)](a, b, out, float(alpha), a.numel(), BLOCK=1024)
    return out
