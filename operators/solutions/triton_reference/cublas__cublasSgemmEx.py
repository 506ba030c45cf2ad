"""cublasSgemmEx in Triton, for the float32 buffers (CUDA_R_32F = 0) it is exercised with:
C = alpha*op(A)*op(B) + beta*C on column-major buffers; Atype/Btype/Ctype must all be CUDA_R_32F.

op(A)(i, p) lives at A[i*sam + p*sak] with (sam, sak) = (1, lda) for 'N' and (lda, 1) for 'T'/'C' (real data:
'C' is 'T'); likewise op(B)(p, j) at B[p*sbk + j*sbn]; C(i, j) at C[i + j*ldc]. The product uses tl.dot with
IEEE float32 precision (no TF32), as cuBLAS's default SGEMM. beta == 0: C is not read; alpha == 0 or k == 0:
A and B are not read.

Narrow products (n <= 16, matrix-vector shaped) take a GEMV-style kernel instead of padding n to a wide GEMM tile:
each program owns BLOCK_M rows of C for all n columns and streams its rows of op(A) along k with fp32 FMAs
(no tl.dot), tiles shaped so that loads run along A's contiguous direction (k for 'T', m for 'N').
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


@triton.jit
def _sgemv_kernel(
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
    # BLOCK_N >= n (a power of two <= 16): one program computes rows rm of C for every column
    pid_m = tl.program_id(0)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    m_mask = rm < m
    a_rows = a_ptr + rm[:, None].to(tl.int64) * sam
    if BLOCK_N == 1:  # matrix-vector: per-lane partial sums over k, one reduction at the end
        part = tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.float32)
        for k0 in range(0, k, BLOCK_K):
            kk = k0 + rk
            a = tl.load(a_rows + kk[None, :].to(tl.int64) * sak, mask=m_mask[:, None] & (kk[None, :] < k), other=0.0)
            b = tl.load(b_ptr + kk.to(tl.int64) * sbk, mask=kk < k, other=0.0)
            part += a * b[None, :]
        acc = tl.sum(part, axis=1)[:, None]
    else:
        part3 = tl.zeros((BLOCK_M, BLOCK_K, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, k, BLOCK_K):
            kk = k0 + rk
            a = tl.load(a_rows + kk[None, :].to(tl.int64) * sak, mask=m_mask[:, None] & (kk[None, :] < k), other=0.0)
            b = tl.load(
                b_ptr + kk[:, None].to(tl.int64) * sbk + rn[None, :].to(tl.int64) * sbn,
                mask=(kk[:, None] < k) & (rn[None, :] < n),
                other=0.0,
            )
            part3 += a[:, :, None] * b[None, :, :]
        acc = tl.sum(part3, axis=1)
    out = alpha * acc
    c_index = rm[:, None].to(tl.int64) + rn[None, :].to(tl.int64) * ldc
    c_mask = m_mask[:, None] & (rn[None, :] < n)
    if READ_C:
        out += beta * tl.load(c_ptr + c_index, mask=c_mask, other=0.0)
    tl.store(c_ptr + c_index, out, mask=c_mask)


_NARROW_N = 16  # n <= this takes the GEMV-style kernel
_NARROW_TILE = 4096  # n > 1: at most this many BLOCK_M*BLOCK_K*BLOCK_N fp32 partial sums per program


def _narrow_prune(configs, named_args, **kwargs):
    """n > 1: shrink BLOCK_K so that the BLOCK_M x BLOCK_K x BLOCK_N partial sums stay in registers."""
    bn = triton.next_power_of_2(named_args["n"])
    if bn == 1:
        return configs
    kept, seen = [], set()
    for c in configs:
        bk = max(8, min(c.kwargs["BLOCK_K"], _NARROW_TILE // (c.kwargs["BLOCK_M"] * bn)))
        key = (c.kwargs["BLOCK_M"], bk, c.num_warps, c.num_stages)
        if key not in seen:
            seen.add(key)
            kept.append(
                triton.Config(
                    {"BLOCK_M": c.kwargs["BLOCK_M"], "BLOCK_K": bk}, num_warps=c.num_warps, num_stages=c.num_stages
                )
            )
    return kept


# op(A) rows contiguous ('T'/'C'): few rows per program, wide k chunks (4096 rows: 256-1024 programs for 132 SMs)
_sgemv_tuned_t = triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 16, "BLOCK_K": 256}, num_warps=4, num_stages=3),
        triton.Config({"BLOCK_M": 8, "BLOCK_K": 512}, num_warps=4, num_stages=3),
        triton.Config({"BLOCK_M": 32, "BLOCK_K": 128}, num_warps=4, num_stages=3),
        triton.Config({"BLOCK_M": 16, "BLOCK_K": 512}, num_warps=8, num_stages=2),
        triton.Config({"BLOCK_M": 4, "BLOCK_K": 1024}, num_warps=4, num_stages=3),
        triton.Config({"BLOCK_M": 16, "BLOCK_K": 256}, num_warps=4, num_stages=1),
    ],
    key=["m", "n", "k", "sam", "sbk", "READ_C"],
    prune_configs_by={"early_config_prune": _narrow_prune},
    restore_value=["c_ptr"],
)(_sgemv_kernel)

# op(A) columns contiguous ('N'): tall tiles along m, short k chunks
_sgemv_tuned_n = triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 64, "BLOCK_K": 32}, num_warps=4, num_stages=3),
        triton.Config({"BLOCK_M": 128, "BLOCK_K": 16}, num_warps=4, num_stages=3),
        triton.Config({"BLOCK_M": 32, "BLOCK_K": 64}, num_warps=4, num_stages=3),
    ],
    key=["m", "n", "k", "sam", "sbk", "READ_C"],
    prune_configs_by={"early_config_prune": _narrow_prune},
    restore_value=["c_ptr"],
)(_sgemv_kernel)


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
    if n <= _NARROW_N:  # matrix-vector shaped: GEMV-style kernel, one program per BLOCK_M rows of C
        bn = triton.next_power_of_2(n)
        row_major = sak == 1  # op(A) rows contiguous: walk k along them; else tile along m

        def grid_m(meta):
            return (triton.cdiv(m, meta["BLOCK_M"]),)

        if C.device.type == "cpu":  # Triton's CPU interpreter: fixed tiles, no tuning
            bm, bk = (16, 64) if row_major else (32, 16)
            _sgemv_kernel[grid_m](*args, READ_C=beta != 0, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk)
        else:
            tuned = _sgemv_tuned_t if row_major else _sgemv_tuned_n
            tuned[grid_m](*args, READ_C=beta != 0, BLOCK_N=bn)
        return C
    if C.device.type == "cpu":  # Triton's CPU interpreter: one small tile, no tuning
        _sgemm_kernel[grid](*args, READ_C=beta != 0, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
    else:
        _sgemm_tuned[grid](*args, READ_C=beta != 0)
    return C
