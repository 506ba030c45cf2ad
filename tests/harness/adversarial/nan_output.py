# ruff: noqa
# family B13: an all-NaN output (passes a naive "max error > tol" check, since NaN > tol is False)
import torch
import triton
import triton.language as tl


@triton.jit
def _nan(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.full((BLOCK,), float("nan"), tl.float32).to(out_ptr.dtype.element_ty), mask=offs < n)


def add_Tensor(self, other, *, alpha=1):
    out = torch.empty_like(self)
    _nan[(triton.cdiv(out.numel(), 1024),)](out, out.numel(), BLOCK=1024)
    return out
