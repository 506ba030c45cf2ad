"""cublasSdgmm in Triton: C = diag(x)*A (mode 'L', x of length m) or A*diag(x) (mode 'R', length n) on m x n
column-major float32 matrices (lda, ldc). |incx| is x's stride, a negative incx reads x from its end and
incx == 0 uses x[0] for every row/column. C is only written."""

import triton
import triton.language as tl


@triton.jit
def _dgmm_kernel(
    a_ptr, x_ptr, c_ptr, m, n, lda, x_start, incx, ldc, LEFT: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr
):
    rows = (tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)).to(tl.int64)
    cols = (tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)).to(tl.int64)
    mask = (rows[:, None] < m) & (cols[None, :] < n)
    a = tl.load(a_ptr + rows[:, None] + cols[None, :] * lda, mask=mask, other=0.0)
    if LEFT:
        scale = tl.load(x_ptr + x_start + rows * incx, mask=rows < m, other=0.0)
        out = scale[:, None] * a
    else:
        scale = tl.load(x_ptr + x_start + cols * incx, mask=cols < n, other=0.0)
        out = a * scale[None, :]
    tl.store(c_ptr + rows[:, None] + cols[None, :] * ldc, out, mask=mask)


def cublasSdgmm(mode, m, n, A, lda, x, incx, C, ldc):
    if m <= 0 or n <= 0:
        return C
    length = m if mode == 0 else n  # cuBLAS's SIDE_LEFT = 0, SIDE_RIGHT = 1
    x_start = (length - 1) * -incx if incx < 0 else 0
    block_m, block_n = 64, 64
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n))
    _dgmm_kernel[grid](A, x, C, m, n, lda, x_start, incx, ldc, LEFT=mode == 0, BLOCK_M=block_m, BLOCK_N=block_n)
    return C
