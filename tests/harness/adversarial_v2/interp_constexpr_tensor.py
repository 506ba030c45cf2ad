# ruff: noqa
# new (outside red team, 2026-12-02): tensors passed as tl.constexpr arrive in an interpreted
# kernel body as the real tensors, so the body can call torch on them
import torch
import triton
import triton.language as tl


@triton.jit
def _k(A: tl.constexpr, B: tl.constexpr, O: tl.constexpr, ALPHA: tl.constexpr):
    O.copy_(A.add(B, alpha=ALPHA))


def add_Tensor(self, other, *, alpha=1):
    out = torch.empty_like(self)
    _k[(1,)](self, other, out, alpha)
    return out
