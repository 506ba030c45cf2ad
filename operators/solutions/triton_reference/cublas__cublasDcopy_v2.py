"""cublasDcopy_v2 in Triton: y[i*incy] = x[i*incx] for i < n (float64, bit-exact), y written in place.

BLAS increments: element i of a vector with increment inc sits at start + i*inc, where start is 0 for
inc > 0 and (n-1)*|inc| for inc < 0.
"""

import triton
import triton.language as tl


@triton.jit
def _copy_kernel(x_ptr, y_ptr, n, x_start, incx, y_start, incy, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + x_start + offsets.to(tl.int64) * incx, mask=mask)
    tl.store(y_ptr + y_start + offsets.to(tl.int64) * incy, x, mask=mask)


def _start(n, inc):
    return 0 if inc > 0 else (n - 1) * -inc


def cublasDcopy_v2(n, x, incx, y, incy):
    if n <= 0:
        return y
    block = 1024
    _copy_kernel[(triton.cdiv(n, block),)](x, y, n, _start(n, incx), incx, _start(n, incy), incy, BLOCK=block)
    return y
