"""cublasSgemmBatched_64 in Triton: C_i = alpha*op(A_i)*op(B_i) + beta*C_i for i < batchCount on column-major
float32 matrices given as int64 device arrays of their addresses (Aarray, Barray, Carray, as upstream passes them); the _64 API only widens the integers.

One launch for the whole batch: the third grid axis is the problem, whose matrices' addresses the kernel
reads from the pointer arrays. No autotuning: tuning reruns the kernel on the real C, which a pointer array
gives no way to restore (the C buffers are not the kernel's tensor arguments), so beta != 0 would be applied
once per config tried.

Products use tl.dot with IEEE float32 precision (no TF32), as cuBLAS's default SGEMM.
"""

import triton
import triton.language as tl


@triton.jit
def _sgemm_kernel(
    a_ptrs,
    b_ptrs,
    c_ptrs,
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
    problem = tl.program_id(2)
    a_ptr = tl.load(a_ptrs + problem).to(tl.pointer_type(tl.float32))
    b_ptr = tl.load(b_ptrs + problem).to(tl.pointer_type(tl.float32))
    c_ptr = tl.load(c_ptrs + problem).to(tl.pointer_type(tl.float32))
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


def cublasSgemmBatched_64(transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc, batchCount):
    if batchCount <= 0 or m <= 0 or n <= 0 or ((alpha == 0 or k <= 0) and beta == 1):
        return Carray
    sam, sak = (1, lda) if transa == "N" else (lda, 1)  # upstream passes gemm's trans as a letter
    sbk, sbn = (1, ldb) if transb == "N" else (ldb, 1)
    k_used = k if alpha != 0 else 0  # alpha == 0: A and B are not read
    if Carray.device.type == "cpu":  # Triton's CPU interpreter: one small tile
        tiles, warps, stages = (32, 32, 32), 4, 1
    elif m * n >= 256 * 256:
        tiles, warps, stages = (128, 128, 32), 8, 3
    else:
        tiles, warps, stages = (64, 64, 32), 4, 4
    block_m, block_n, block_k = tiles
    grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n), batchCount)
    _sgemm_kernel[grid](
        Aarray,
        Barray,
        Carray,
        m,
        n,
        k_used,
        float(alpha),
        float(beta),
        sam,
        sak,
        sbk,
        sbn,
        ldc,
        READ_C=beta != 0,
        BLOCK_M=block_m,
        BLOCK_N=block_n,
        BLOCK_K=block_k,
        num_warps=warps,
        num_stages=stages,
    )
    return Carray
