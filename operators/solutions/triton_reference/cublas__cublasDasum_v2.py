"""cublasDasum_v2 in Triton: result[0] = sum_i |x_i| over n strided float64 elements (0 when n <= 0 or
incx <= 0). Two passes of float64 partial sums, no atomics."""

import torch
import triton
import triton.language as tl


@triton.jit
def _partial_asum_kernel(x_ptr, partial_ptr, n, incx, BLOCK: tl.constexpr, CHUNK: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float64)
    for step in range(0, CHUNK, BLOCK):
        offsets = pid * CHUNK + step + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offsets.to(tl.int64) * incx, mask=offsets < n, other=0.0)
        acc += tl.abs(x)
    tl.store(partial_ptr + pid, tl.sum(acc, axis=0))


@triton.jit
def _sum_partials_kernel(partial_ptr, result_ptr, count, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float64)
    for start in range(0, count, BLOCK):
        offsets = start + tl.arange(0, BLOCK)
        acc += tl.load(partial_ptr + offsets, mask=offsets < count, other=0.0)
    tl.store(result_ptr, tl.sum(acc, axis=0))


def cublasDasum_v2(n, x, incx, result):
    block, chunk = 1024, 8192
    programs = triton.cdiv(n, chunk) if n > 0 and incx > 0 else 0
    partials = torch.empty(max(programs, 1), dtype=torch.float64, device=result.device)
    if programs:
        _partial_asum_kernel[(programs,)](x, partials, n, incx, BLOCK=block, CHUNK=chunk)
    _sum_partials_kernel[(1,)](partials, result, programs, BLOCK=1024)
    return result
