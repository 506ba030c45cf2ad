"""cublasSgeam in Triton: C = alpha*op(A) + beta*op(B) on m x n column-major float32 matrices (lda, ldb, ldc).
C is only written; alpha == 0 means A is not read and beta == 0 that B is not read."""

import triton
import triton.language as tl


@triton.jit
def _geam_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    m,
    n,
    alpha,
    beta,
    sam,
    san,
    sbm,
    sbn,
    ldc,
    READ_A: tl.constexpr,
    READ_B: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    rows = (tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)).to(tl.int64)
    cols = (tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)).to(tl.int64)
    mask = (rows[:, None] < m) & (cols[None, :] < n)
    out = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    if READ_A:
        out += alpha * tl.load(a_ptr + rows[:, None] * sam + cols[None, :] * san, mask=mask, other=0.0)
    if READ_B:
        out += beta * tl.load(b_ptr + rows[:, None] * sbm + cols[None, :] * sbn, mask=mask, other=0.0)
    tl.store(c_ptr + rows[:, None] + cols[None, :] * ldc, out, mask=mask)


def cublasSgeam(transa, transb, m, n, alpha, A, lda, beta, B, ldb, C, ldc):
    if m <= 0 or n <= 0:
        return C
    sam, san = (1, lda) if transa == 0 else (lda, 1)  # cuBLAS's OP_N = 0, OP_T = 1
    sbm, sbn = (1, ldb) if transb == 0 else (ldb, 1)
    block_m, block_n = 64, 64
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n))
    _geam_kernel[grid](
        A,
        B,
        C,
        m,
        n,
        float(alpha),
        float(beta),
        sam,
        san,
        sbm,
        sbn,
        ldc,
        READ_A=alpha != 0,
        READ_B=beta != 0,
        BLOCK_M=block_m,
        BLOCK_N=block_n,
    )
    return C
