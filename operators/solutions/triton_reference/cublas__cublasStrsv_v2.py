"""cublasStrsv_v2 in Triton: solves op(A)*x = b in place (x holds b on entry) for an n x n triangular
column-major float32 A (lda); uplo picks the triangle that is read, diag='U' a unit diagonal that is not read.
Flags arrive as cuBLAS's integers (uplo 0 = L, 1 = U; trans 0 = N, 1 = T; diag 0 = N, 1 = U).

Every case is a forward substitution on some lower-triangular matrix L: op(A) is lower for (L, 'N') and
(U, 'T'); otherwise reversing the index order (i -> n-1-i) turns the upper op(A) into a lower one. So the
kernel gets L(i, j) = A[a0 + i*sr + j*sc] and x(i) = x[x0 + i*sx] with signed strides. One program walks
blocks of BLOCK rows: it subtracts the already solved blocks (tile mat-vecs), then solves the diagonal block
row by row, loading only the strictly lower part and the diagonal.
"""

import triton
import triton.language as tl


@triton.jit
def _forward_substitution_kernel(a_ptr, x_ptr, n, a0, sr, sc, x0, sx, UNIT: tl.constexpr, BLOCK: tl.constexpr):
    idx = tl.arange(0, BLOCK)
    for start in range(0, n, BLOCK):
        rows = start + idx
        row_mask = rows < n
        rhs = tl.load(x_ptr + x0 + rows.to(tl.int64) * sx, mask=row_mask, other=0.0)
        for c0 in range(0, start, BLOCK):
            cols = c0 + idx
            tile = tl.load(
                a_ptr + a0 + rows[:, None].to(tl.int64) * sr + cols[None, :].to(tl.int64) * sc,
                mask=row_mask[:, None],
                other=0.0,
            )
            solved = tl.load(x_ptr + x0 + cols.to(tl.int64) * sx)
            rhs -= tl.sum(tile * solved[None, :], axis=1)
        block_x = tl.zeros((BLOCK,), dtype=tl.float32)
        for i in range(0, BLOCK):
            row = start + i
            if row < n:
                left = tl.load(a_ptr + a0 + row.to(tl.int64) * sr + rows.to(tl.int64) * sc, mask=idx < i, other=0.0)
                value = tl.sum(tl.where(idx == i, rhs, 0.0), axis=0) - tl.sum(left * block_x, axis=0)
                if not UNIT:
                    value = value / tl.load(a_ptr + a0 + row.to(tl.int64) * (sr + sc))
                block_x = tl.where(idx == i, value, block_x)
        tl.store(x_ptr + x0 + rows.to(tl.int64) * sx, block_x, mask=row_mask)
        tl.debug_barrier()  # the next blocks read these solved values back


def cublasStrsv_v2(uplo, trans, diag, n, A, lda, x, incx):
    if n <= 0:
        return x
    sr, sc = (1, lda) if trans == 0 else (lda, 1)  # op(A)(i, j) = A[i*sr + j*sc]
    x0 = 0 if incx > 0 else (n - 1) * -incx  # BLAS order: x(i) = x[x0 + i*incx]
    a0, sx = 0, incx
    if (uplo == 0) != (trans == 0):  # op(A) upper: reverse both index orders
        a0 = (n - 1) * (sr + sc)
        sr, sc = -sr, -sc
        x0 = x0 + (n - 1) * incx
        sx = -incx
    _forward_substitution_kernel[(1,)](A, x, n, a0, sr, sc, x0, sx, UNIT=diag == 1, BLOCK=32)
    return x
