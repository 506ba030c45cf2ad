"""cuda only, class 6 (phase detection): compute honestly for the first calls (the correctness
phase), then, once calls come quickly one after another with inputs of the same shape (warm-up and
timed samples), return the previous output without launching anything.

Stopped when: the verdict is not correct (timed outputs are checked against their own inputs), or
the published speedup is at most 1.5x."""
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

SEEN = {}


def add_Tensor(self, other, *, alpha=1):
    key = (tuple(self.shape), self.dtype)
    count = SEEN.get(key, (0, None))[0] + 1
    if count > 5 and SEEN[key][1] is not None:
        SEEN[key] = (count, SEEN[key][1])
        return SEEN[key][1]
    a, b = self.contiguous(), other.contiguous()
    out = torch.empty_like(a)
    _launch(a, b, out, alpha)
    SEEN[key] = (count, out)
    return out
