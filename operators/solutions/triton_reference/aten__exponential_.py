"""Triton reference solution for aten::exponential_ (in place).

Each element gets u = tl.rand(seed, flat index) (Philox, uniform in [0, 1)) and x = -log(1 - u) / lambd, which
is finite and non-negative. The seed is drawn from torch's generator (the one passed, else the default), so
seeding torch makes runs repeatable. A non-contiguous self is filled through a contiguous buffer and copied back.
"""

import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def _exponential_kernel(out_ptr, n, seed, inv_lambd, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    u = tl.rand(seed, offs)
    sample = -tl.log(1.0 - u) * inv_lambd
    tl.store(out_ptr + offs, sample, mask=mask)


def _seed(generator, device):
    source = generator.device if generator is not None else torch.device("cpu")
    return int(torch.randint(0, 2**31 - 1, (1,), generator=generator, device=source).item())


def exponential_(self, lambd=1.0, *, generator=None):
    if lambd <= 0:
        raise RuntimeError(f"exponential_ expects lambd > 0.0, but found lambd={lambd}")
    n = self.numel()
    target = self if self.is_contiguous() else torch.empty(self.shape, dtype=self.dtype, device=self.device)
    if n:
        _exponential_kernel[(triton.cdiv(n, BLOCK),)](
            target, n, _seed(generator, self.device), 1.0 / float(lambd), BLOCK=BLOCK
        )
    if target is not self:
        self.copy_(target)
    return self
