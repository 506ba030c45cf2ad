"""cublasSgemvStridedBatched in Triton: y_b = alpha*op(A_b)*x_b + beta*y_b for b < batchCount, on
column-major float32 matrices (lda) with problem b's A, x, y starting b*strideA, b*stridex, b*stridey
elements into their buffers.

Each program owns a block of outputs of one problem and walks the reduction in tiles whose fast axis is
A's column (contiguous in memory) for both 'N' and 'T'. beta == 0: y is not read; alpha == 0: A and x are
not read.
"""

import triton
import triton.language as tl


@triton.jit
def _gemv_n_kernel(
    a_ptr,
    x_ptr,
    y_ptr,
    m,
    n,
    alpha,
    beta,
    lda,
    stride_a,
    x_start,
    incx,
    stride_x,
    y_start,
    incy,
    stride_y,
    USE_A: tl.constexpr,
    READ_Y: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    # y(i) = sum_j A(i, j) x(j): rows i of this block, columns j in tiles
    batch = tl.program_id(1).to(tl.int64)
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    if USE_A:
        for j0 in range(0, n, BLOCK_N):
            cols = j0 + tl.arange(0, BLOCK_N)
            a = tl.load(
                a_ptr + batch * stride_a + rows[:, None] + cols[None, :].to(tl.int64) * lda,
                mask=(rows[:, None] < m) & (cols[None, :] < n),
                other=0.0,
            )
            x = tl.load(x_ptr + batch * stride_x + x_start + cols.to(tl.int64) * incx, mask=cols < n, other=0.0)
            acc += tl.sum(a * x[None, :], axis=1)
    out = alpha * acc
    y_index = batch * stride_y + y_start + rows.to(tl.int64) * incy
    if READ_Y:
        out += beta * tl.load(y_ptr + y_index, mask=rows < m, other=0.0)
    tl.store(y_ptr + y_index, out, mask=rows < m)


@triton.jit
def _gemv_t_kernel(
    a_ptr,
    x_ptr,
    y_ptr,
    m,
    n,
    alpha,
    beta,
    lda,
    stride_a,
    x_start,
    incx,
    stride_x,
    y_start,
    incy,
    stride_y,
    USE_A: tl.constexpr,
    READ_Y: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    # y(j) = sum_i A(i, j) x(i): columns j of this block, rows i in tiles
    batch = tl.program_id(1).to(tl.int64)
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    if USE_A:
        for i0 in range(0, m, BLOCK_M):
            rows = i0 + tl.arange(0, BLOCK_M)
            a = tl.load(
                a_ptr + batch * stride_a + rows[:, None] + cols[None, :].to(tl.int64) * lda,
                mask=(rows[:, None] < m) & (cols[None, :] < n),
                other=0.0,
            )
            x = tl.load(x_ptr + batch * stride_x + x_start + rows.to(tl.int64) * incx, mask=rows < m, other=0.0)
            acc += tl.sum(a * x[:, None], axis=0)
    out = alpha * acc
    y_index = batch * stride_y + y_start + cols.to(tl.int64) * incy
    if READ_Y:
        out += beta * tl.load(y_ptr + y_index, mask=cols < n, other=0.0)
    tl.store(y_ptr + y_index, out, mask=cols < n)


def _start(length, inc):
    return 0 if inc > 0 else (length - 1) * -inc


def cublasSgemvStridedBatched(
    trans, m, n, alpha, A, lda, strideA, x, incx, stridex, beta, y, incy, stridey, batchCount
):
    if batchCount <= 0 or m <= 0 or n <= 0 or (alpha == 0 and beta == 1):
        return y
    len_x, len_y = (n, m) if trans == "N" else (m, n)
    flags = {"USE_A": alpha != 0, "READ_Y": beta != 0}
    args = (
        A,
        x,
        y,
        m,
        n,
        float(alpha),
        float(beta),
        lda,
        strideA,
        _start(len_x, incx),
        incx,
        stridex,
        _start(len_y, incy),
        incy,
        stridey,
    )
    if trans == "N":
        block_m, block_n = 64, 64
        _gemv_n_kernel[(triton.cdiv(m, block_m), batchCount)](*args, **flags, BLOCK_M=block_m, BLOCK_N=block_n)
    else:
        block_m, block_n = 64, 64
        _gemv_t_kernel[(triton.cdiv(n, block_n), batchCount)](*args, **flags, BLOCK_M=block_m, BLOCK_N=block_n)
    return y
