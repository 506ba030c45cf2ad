"""cublasSscal_v2 in Triton: x = alpha*x over n strided float32 elements, in place (no-op for incx <= 0)."""

import triton
import triton.language as tl


@triton.jit
def _scal_kernel(x_ptr, n, alpha, incx, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    index = offsets.to(tl.int64) * incx
    x = tl.load(x_ptr + index, mask=mask)
    tl.store(x_ptr + index, alpha * x, mask=mask)


def cublasSscal_v2(n, alpha, x, incx):
    if n <= 0 or incx <= 0:
        return x
    block = 1024
    _scal_kernel[(triton.cdiv(n, block),)](x, n, float(alpha), incx, BLOCK=block)
    return x
