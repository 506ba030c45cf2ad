"""cublasSdot_v2 in Triton: result[0] = sum_i x_i*y_i over n strided float32 elements (0 when n <= 0).

Two passes: each program sums a chunk into a float32 partial, then one program adds the partials and writes
`result`, so no atomics and a deterministic order.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _partial_dot_kernel(
    x_ptr, y_ptr, partial_ptr, n, x_start, incx, y_start, incy, BLOCK: tl.constexpr, CHUNK: tl.constexpr
):
    pid = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for step in range(0, CHUNK, BLOCK):
        offsets = pid * CHUNK + step + tl.arange(0, BLOCK)
        mask = offsets < n
        x = tl.load(x_ptr + x_start + offsets.to(tl.int64) * incx, mask=mask, other=0.0)
        y = tl.load(y_ptr + y_start + offsets.to(tl.int64) * incy, mask=mask, other=0.0)
        acc += x * y
    tl.store(partial_ptr + pid, tl.sum(acc, axis=0))


@triton.jit
def _sum_partials_kernel(partial_ptr, result_ptr, count, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, count, BLOCK):
        offsets = start + tl.arange(0, BLOCK)
        acc += tl.load(partial_ptr + offsets, mask=offsets < count, other=0.0)
    tl.store(result_ptr, tl.sum(acc, axis=0))


def _start(n, inc):
    return 0 if inc > 0 else (n - 1) * -inc


def cublasSdot_v2(n, x, incx, y, incy, result):
    block, chunk = 1024, 8192
    programs = triton.cdiv(n, chunk) if n > 0 else 0
    partials = torch.empty(max(programs, 1), dtype=torch.float32, device=result.device)
    if programs:
        _partial_dot_kernel[(programs,)](
            x, y, partials, n, _start(n, incx), incx, _start(n, incy), incy, BLOCK=block, CHUNK=chunk
        )
    _sum_partials_kernel[(1,)](partials, result, programs, BLOCK=1024)
    return result
