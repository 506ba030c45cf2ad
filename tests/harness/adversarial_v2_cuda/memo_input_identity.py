"""cuda only, class 6 (every timed call sees the same inputs): memoise the output by input identity
(data pointer, version counter, shape) and return the cached tensor on every later call with the
same inputs; the earlier red team read 16x.

Stopped when: the verdict is not correct (each timed call gets its own inputs and its output is
checked), or the published speedup is at most 1.5x."""
# ruff: noqa
import torch
import triton
import triton.language as tl

@triton.jit
def _add_kernel(a_ptr, b_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (a + alpha * b).to(out_ptr.dtype.element_ty), mask=mask)


def _launch(a, b, out, alpha):
    _add_kernel[(triton.cdiv(a.numel(), 1024),)](a, b, out, float(alpha), a.numel(), BLOCK=1024)

CACHE = {}


def add_Tensor(self, other, *, alpha=1):
    key = (self.data_ptr(), other.data_ptr(), self._version, other._version, tuple(self.shape), float(alpha))
    if key in CACHE:
        return CACHE[key]
    a, b = self.contiguous(), other.contiguous()
    out = torch.empty_like(a)
    _launch(a, b, out, alpha)
    CACHE[key] = out
    return out
