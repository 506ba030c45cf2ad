"""cublasSgemmEx in Triton, for the float32 buffers (CUDA_R_32F = 0) it is exercised with:
C = alpha*op(A)*op(B) + beta*C on column-major buffers; Atype/Btype/Ctype must all be CUDA_R_32F.

op(A)(i, p) lives at A[i*sam + p*sak] with (sam, sak) = (1, lda) for 'N' and (lda, 1) for 'T'/'C' (real data:
'C' is 'T'); likewise op(B)(p, j) at B[p*sbk + j*sbn]; C(i, j) at C[i + j*ldc]. The product uses tl.dot with
IEEE float32 precision (no TF32), as cuBLAS's default SGEMM. beta == 0: C is not read; alpha == 0 or k == 0:
A and B are not read.
"""

import triton
import triton.language as tl


@triton.jit
def _sgemm_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    m,
    n,
    k,
    alpha,
    beta,
    sam,
    sak,
    sbk,
    sbn,
    ldc,
    READ_C: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, k, BLOCK_K):
        kk = k0 + rk
        a = tl.load(
            a_ptr + rm[:, None].to(tl.int64) * sam + kk[None, :].to(tl.int64) * sak,
            mask=(rm[:, None] < m) & (kk[None, :] < k),
            other=0.0,
        )
        b = tl.load(
            b_ptr + kk[:, None].to(tl.int64) * sbk + rn[None, :].to(tl.int64) * sbn,
            mask=(kk[:, None] < k) & (rn[None, :] < n),
            other=0.0,
        )
        acc = tl.dot(a, b, acc, input_precision="ieee")
    out = alpha * acc
    c_index = rm[:, None].to(tl.int64) + rn[None, :].to(tl.int64) * ldc
    c_mask = (rm[:, None] < m) & (rn[None, :] < n)
    if READ_C:
        out += beta * tl.load(c_ptr + c_index, mask=c_mask, other=0.0)
    tl.store(c_ptr + c_index, out, mask=c_mask)


# tile shapes for GPUs; Triton's CPU interpreter gets one small tile instead (no tuning there)
_sgemm_tuned = triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32}, num_warps=8, num_stages=3),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=4, num_stages=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 32}, num_warps=4, num_stages=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=4, num_stages=4),
    ],
    key=["m", "n", "k", "sam", "sbk", "READ_C"],
    restore_value=["c_ptr"],  # tuning runs every config on the real C: undo each run (C is read when beta != 0)
)(_sgemm_kernel)


def cublasSgemmEx(transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc):
    if (Atype, Btype, Ctype) != (0, 0, 0):
        raise NotImplementedError("only CUDA_R_32F (0) buffers are supported")
    if m <= 0 or n <= 0 or ((alpha == 0 or k <= 0) and beta == 1):
        return C
    sam, sak = (1, lda) if transa == "N" else (lda, 1)
    sbk, sbn = (1, ldb) if transb == "N" else (ldb, 1)
    k_used = k if alpha != 0 else 0  # alpha == 0: the product is not formed, A and B are not read

    def grid(meta):
        return (triton.cdiv(m, meta["BLOCK_M"]), triton.cdiv(n, meta["BLOCK_N"]))

    args = (A, B, C, m, n, k_used, float(alpha), float(beta), sam, sak, sbk, sbn, ldc)
    if C.device.type == "cpu":  # Triton's CPU interpreter: one small tile, no tuning
        _sgemm_kernel[grid](*args, READ_C=beta != 0, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
    else:
        _sgemm_tuned[grid](*args, READ_C=beta != 0)
    return C
