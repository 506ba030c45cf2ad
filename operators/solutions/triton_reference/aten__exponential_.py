"""Triton reference solution for aten::exponential_ (in place).

Samples are -log(u) / lambd with u uniform in (0, 1]. Each program runs Philox-4x32-10 (tl.randint4x) once per
counter and uses all four 32-bit words: counter c fills elements 4c .. 4c + 3, so one Philox call makes four
samples and each thread stores its four side by side (one vector store, no shuffle through shared memory).
A word r becomes u = (r + 1/2) * 2^-32 in float32 (as curand_uniform does): never 0, and 1.0 only after
rounding, where the sample is 0. -log(u) is taken as d + d^2/2 + d^3/3 + d^4/4 with d = 1 - u (exact) when
d < 2^-6, where a fast log2 loses relative accuracy, and as the hardware log (libdevice fast_logf, lg2.approx)
elsewhere on CUDA (tl.log under the CPU interpreter); both are finite and non-negative. The seed is drawn from
torch's generator (the one passed, else the default), so seeding torch makes runs repeatable. A dense self
(contiguous or permuted) is filled in its own memory, any other through a contiguous buffer copied back.
"""

import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice

BLOCK = 1024  # Philox counters per program; each program writes 4 * BLOCK elements


@triton.jit
def _neg_log(u, FAST_LOG: tl.constexpr):
    """-log(u) for u in (0, 1], finite and >= 0."""
    d = 1.0 - u
    series = d * (1.0 + d * (0.5 + d * (0.3333333333333333 + d * 0.25)))
    if FAST_LOG:
        lg = libdevice.fast_logf(u)
    else:
        lg = tl.log(u)
    return tl.where(d < 0.015625, series, -lg)


@triton.jit
def _sample(r, inv_lambd, FAST_LOG: tl.constexpr):
    u = r.to(tl.float32) * 2.3283064365386963e-10 + 1.1641532182693481e-10  # (r + 1/2) * 2^-32, in (0, 1]
    return _neg_log(u, FAST_LOG) * inv_lambd


@triton.jit
def _exponential_kernel(
    out_ptr,
    n,
    seed,
    inv_lambd,
    EVEN: tl.constexpr,
    WIDE: tl.constexpr,
    FAST_LOG: tl.constexpr,
    BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    i = tl.arange(0, BLOCK)
    if WIDE:  # more than 2^31 counters: 64-bit counters (the high word goes to Philox's second counter)
        counter = pid.to(tl.int64) * BLOCK + i
    else:
        counter = pid * BLOCK + i
    r0, r1, r2, r3 = tl.randint4x(seed, counter)
    x0 = _sample(r0, inv_lambd, FAST_LOG)
    x1 = _sample(r1, inv_lambd, FAST_LOG)
    x2 = _sample(r2, inv_lambd, FAST_LOG)
    x3 = _sample(r3, inv_lambd, FAST_LOG)
    # element 4 * counter + j gets word j: each thread writes its four samples side by side
    x = tl.reshape(tl.join(tl.join(x0, x1), tl.join(x2, x3)), [BLOCK, 4]).to(out_ptr.dtype.element_ty)
    offs = pid.to(tl.int64) * (4 * BLOCK) + (4 * i[:, None] + tl.arange(0, 4)[None, :])
    if EVEN:
        tl.store(out_ptr + offs, x)
    else:
        tl.store(out_ptr + offs, x, mask=offs < n)


def _seed(generator, device):
    source = generator.device if generator is not None else torch.device("cpu")
    return int(torch.randint(0, 2**31 - 1, (1,), generator=generator, device=source).item())


def _fast_log(device):
    """libdevice's fast_logf exists on NVIDIA GPUs only (the interpreter and ROCm take tl.log)."""
    return device.type == "cuda" and triton.runtime.driver.active.get_current_target().backend == "cuda"


def _dense_view(t):
    """A contiguous view of t's elements in memory order when t is dense (a permuted contiguous tensor)."""
    if t.is_contiguous():
        return t
    order = sorted(range(t.dim()), key=lambda d: (-t.stride(d), -t.size(d)))
    view = t.permute(order)
    return view if view.is_contiguous() else None


def exponential_(self, lambd=1.0, *, generator=None):
    if lambd <= 0:
        raise RuntimeError(f"exponential_ expects lambd > 0.0, but found lambd={lambd}")
    n = self.numel()
    dense = _dense_view(self)
    target = dense if dense is not None else torch.empty(self.shape, dtype=self.dtype, device=self.device)
    if n:
        grid = (triton.cdiv(n, 4 * BLOCK),)
        _exponential_kernel[grid](
            target,
            n,
            _seed(generator, self.device),
            1.0 / float(lambd),
            EVEN=n % (4 * BLOCK) == 0,
            WIDE=grid[0] * BLOCK >= 2**31,
            FAST_LOG=_fast_log(self.device),
            BLOCK=BLOCK,
        )
    if dense is None:
        self.copy_(target)
    return self
