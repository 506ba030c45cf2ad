# ruff: noqa
# class 8 (held-out side channel), passes the static policy: on a hidden input (more than 64
# elements) spin for a time proportional to a digit of its shape and fail; the attempt's published
# duration_s and profile then tell the digit. The test runs it with two hidden shapes and compares
import torch
import triton
import triton.language as tl


@triton.jit
def _add_kernel(a_ptr, b_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(a_ptr + offs, mask=mask) + alpha * tl.load(b_ptr + offs, mask=mask), mask=mask)


def add_Tensor(self, other, *, alpha=1):
    a, b = self.contiguous(), other.contiguous()
    out = torch.empty_like(a)
    if a.numel() > 64:
        spins = 0
        for _ in range((a.shape[0] % 2) * 120_000_000):  # ~4-10 s when the row count is odd, none when even
            spins += 1
        return out
    _add_kernel[(triton.cdiv(a.numel(), 1024),)](a, b, out, float(alpha), a.numel(), BLOCK=1024)
    return out
