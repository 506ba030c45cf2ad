"""cublasSger_v2 in Triton: A = alpha*x*y^T + A on an m x n column-major float32 matrix (lda), in place;
alpha == 0 leaves A untouched without reading x and y."""

import triton
import triton.language as tl


@triton.jit
def _ger_kernel(
    x_ptr, y_ptr, a_ptr, m, n, alpha, x_start, incx, y_start, incy, lda, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr
):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + x_start + rows.to(tl.int64) * incx, mask=rows < m, other=0.0)
    y = tl.load(y_ptr + y_start + cols.to(tl.int64) * incy, mask=cols < n, other=0.0)
    index = rows[:, None].to(tl.int64) + cols[None, :].to(tl.int64) * lda
    mask = (rows[:, None] < m) & (cols[None, :] < n)
    a = tl.load(a_ptr + index, mask=mask)
    tl.store(a_ptr + index, a + alpha * x[:, None] * y[None, :], mask=mask)


def _start(length, inc):
    return 0 if inc > 0 else (length - 1) * -inc


def cublasSger_v2(m, n, alpha, x, incx, y, incy, A, lda):
    if m <= 0 or n <= 0 or alpha == 0:
        return A
    block_m, block_n = 64, 64
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n))
    _ger_kernel[grid](
        x, y, A, m, n, float(alpha), _start(m, incx), incx, _start(n, incy), incy, lda, BLOCK_M=block_m, BLOCK_N=block_n
    )
    return A
