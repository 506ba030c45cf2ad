# honest: two kernels per call (scale into a temporary, then add), both launched by the wrapper
import torch
import triton
import triton.language as tl


@triton.jit
def _scale(b_ptr, tmp_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(tmp_ptr + offs, tl.load(b_ptr + offs, mask=mask) * alpha, mask=mask)


@triton.jit
def _add(a_ptr, tmp_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(a_ptr + offs, mask=mask) + tl.load(tmp_ptr + offs, mask=mask), mask=mask)


def add_Tensor(self, other, *, alpha=1):
    a = self.contiguous()
    b = other.contiguous()
    n = a.numel()
    tmp = torch.empty_like(b)
    out = torch.empty_like(a)
    grid = (triton.cdiv(n, 64),)
    _scale[grid](b, tmp, float(alpha), n, BLOCK=64)
    _add[grid](a, tmp, out, n, BLOCK=64)
    return out
