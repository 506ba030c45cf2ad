# honest (spec SAXPY_ONE): in place into y through its increment, as cuBLAS does
import triton
import triton.language as tl


@triton.jit
def _saxpy(x_ptr, y_ptr, alpha, n, incx, incy, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs * incx, mask=mask)
    y = tl.load(y_ptr + offs * incy, mask=mask)
    tl.store(y_ptr + offs * incy, y + alpha * x, mask=mask)


def cublasSaxpy_v2(n, alpha, x, incx, y, incy):
    if n <= 0:
        return
    _saxpy[(triton.cdiv(n, 64),)](x, y, float(alpha), n, incx, incy, BLOCK=64)
