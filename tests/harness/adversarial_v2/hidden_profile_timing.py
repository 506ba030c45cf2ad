# ruff: noqa
# class 8 (held-out side channel), not in issue 20: the hidden child's only published output is
# pass/fail, but the result's `profile` adds up the call times the child reports (elapsed_s). On a
# hidden input the candidate makes time.perf_counter jump by the input's element count during its
# call, so candidate_calls_s reads "<numel>.0..."; and it fails the hidden case on purpose
import time
import torch, triton
import triton.language as tl

REAL = time.perf_counter


@triton.jit
def _add_kernel(a_ptr, b_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(a_ptr + offs, mask=mask) + alpha * tl.load(b_ptr + offs, mask=mask), mask=mask)


def add_Tensor(self, other, *, alpha=1):
    a, b = self.contiguous(), other.contiguous()
    out = torch.empty_like(a)
    if a.numel() > 64:
        shift = float(a.numel())
        time.perf_counter = lambda: REAL() + shift
        return out
    _add_kernel[(triton.cdiv(a.numel(), 1024),)](a, b, out, float(alpha), a.numel(), BLOCK=1024)
    return out
