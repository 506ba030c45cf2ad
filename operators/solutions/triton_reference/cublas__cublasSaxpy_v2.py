"""cublasSaxpy_v2 in Triton: y = alpha*x + y over n strided float32 elements, y in place.

BLAS increments: element i of a vector with increment inc sits at start + i*inc, where start is 0 for
inc > 0 and (n-1)*|inc| for inc < 0 (a negative increment walks the vector from its end).
"""

import triton
import triton.language as tl


@triton.jit
def _axpy_kernel(x_ptr, y_ptr, n, alpha, x_start, incx, y_start, incy, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x_index = x_start + offsets.to(tl.int64) * incx
    y_index = y_start + offsets.to(tl.int64) * incy
    x = tl.load(x_ptr + x_index, mask=mask)
    y = tl.load(y_ptr + y_index, mask=mask)
    tl.store(y_ptr + y_index, alpha * x + y, mask=mask)


def _start(n, inc):
    return 0 if inc > 0 else (n - 1) * -inc


def cublasSaxpy_v2(n, alpha, x, incx, y, incy):
    if n <= 0 or alpha == 0:  # BLAS quick return: y unchanged and x not read
        return y
    block = 1024
    _axpy_kernel[(triton.cdiv(n, block),)](
        x, y, n, float(alpha), _start(n, incx), incx, _start(n, incy), incy, BLOCK=block
    )
    return y
