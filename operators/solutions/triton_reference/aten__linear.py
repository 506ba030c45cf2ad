"""Triton reference solution for aten::linear: y = x @ W^T + b.

The input's leading dims are flattened into rows (a view when the layout allows it); W^T is read through
W's strides and the bias is added to the fp32 accumulator before the single rounding to the output dtype.

One tiled GEMM kernel for C[b] = A[b] @ B[b] (+ bias) over a batch axis, reading every operand through its
strides (row-major, column-major and transposed views need no copy). Tiles are grouped along M (GROUP_M) so
neighbouring programs reuse B tiles from L2; the K loop advances the A and B pointers (Triton pipelines the
loads over num_stages). Accumulation is fp32 with tl.dot: half inputs use the tensor cores (wgmma on Hopper);
float32 inputs use input_precision="ieee" (the FMA loop, no TF32), as the operator's notes ask.

On GPUs the tile shape is autotuned per (M, N, K, layout, dtype) over a short list pruned by M and N: 128x256,
256x128 and 128x128 tiles (BLOCK_K 64, 8 warps, 3-4 stages) and a 64x128 tile for few row blocks or few
tiles in all; M <= 16 (decode, vector @ matrix) uses 16-row tiles narrow in N and deep in K so that about 128
programs stream B at once, and N <= 16 (matrix @ vector) the transposed choice, 16-column tiles deep in K so
that several hundred programs stream A. On the CPU (the Triton interpreter, whose tl.dot returns garbage for
bfloat16 tiles: measured errors of 1e10) one fixed tile is used and bfloat16 tiles are widened to fp32 first.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _gemm_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    bias_ptr,
    M,
    N,
    K,
    stride_ab,
    stride_am,
    stride_ak,
    stride_bb,
    stride_bk,
    stride_bn,
    stride_cb,
    stride_cm,
    stride_cn,
    HAS_BIAS: tl.constexpr,
    PRECISION: tl.constexpr,
    WIDEN: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
):
    pid = tl.program_id(0)
    batch = tl.program_id(1).to(tl.int64)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    group = pid // (GROUP_M * num_n)
    first_m = group * GROUP_M
    group_size = tl.minimum(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % (GROUP_M * num_n)) % group_size
    pid_n = (pid % (GROUP_M * num_n)) // group_size
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    mask_m = offs_m[:, None] < M
    mask_n = offs_n[None, :] < N
    a_ptrs = (
        a_ptr + batch * stride_ab + offs_m[:, None].to(tl.int64) * stride_am + offs_k[None, :].to(tl.int64) * stride_ak
    )
    b_ptrs = (
        b_ptr + batch * stride_bb + offs_k[:, None].to(tl.int64) * stride_bk + offs_n[None, :].to(tl.int64) * stride_bn
    )
    a_step = tl.cast(stride_ak, tl.int64) * BLOCK_K
    b_step = tl.cast(stride_bk, tl.int64) * BLOCK_K
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs, mask=mask_m & (offs_k[None, :] < K - k), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < K - k) & mask_n, other=0.0)
        if WIDEN:
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision="ieee")
        elif PRECISION == "default":
            acc = tl.dot(a, b, acc)
        else:
            acc = tl.dot(a, b, acc, input_precision=PRECISION)
        a_ptrs += a_step
        b_ptrs += b_step
    if HAS_BIAS:
        acc += tl.load(bias_ptr + offs_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
    c_ptrs = c_ptr + batch * stride_cb + offs_m[:, None].to(tl.int64) * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=mask_m & mask_n)


def _config(block_m, block_n, block_k, num_warps, num_stages):
    return triton.Config(
        {"BLOCK_M": block_m, "BLOCK_N": block_n, "BLOCK_K": block_k, "GROUP_M": 8},
        num_warps=num_warps,
        num_stages=num_stages,
    )


# GPU tiles. 16-bit inputs: shared memory per stage is (BM + BN) x BK x 2 bytes (48 KB for 128x256x64).
_HALF_CONFIGS = (
    _config(128, 256, 64, 8, 3),
    _config(256, 128, 64, 8, 3),
    _config(128, 128, 64, 8, 4),
    _config(64, 128, 64, 4, 4),
    _config(16, 32, 256, 4, 4),  # M <= 16: N / 32 programs (128 at N = 4096), 16 KB of B a stage
    _config(16, 64, 128, 4, 4),
    _config(32, 16, 256, 4, 4),  # N <= 16 (matrix-vector): M / 32 programs (448 at M = 14336) stream A
    _config(64, 16, 128, 4, 4),
)
# float32: 4-byte elements, so BLOCK_K 32 keeps the shared memory per stage of the 16-bit tiles
_FLOAT_CONFIGS = (
    _config(128, 128, 32, 8, 3),
    _config(128, 128, 32, 8, 4),
    _config(64, 128, 32, 4, 4),
    _config(16, 64, 64, 4, 3),
    _config(64, 16, 64, 4, 3),
)
_SMS = 132  # H200


def _prune(configs, named_args, **kwargs):
    """Keep the tiles that fit the problem's shape (the autotuner times only these).

    M <= 16 (decode, vector @ matrix): the 16-row tiles. N <= 16 (matrix @ vector): the 16-column tiles. Else
    the wide tiles: only the 64-row one up to M = 64, and the 64-row one also when 128x128 tiles would leave
    SMs idle (few row and column blocks, e.g. 512x512 per batch).
    """
    m, n = named_args["M"], named_args["N"]
    if m <= 16:
        return [c for c in configs if c.kwargs["BLOCK_M"] == 16]
    if n <= 16:
        return [c for c in configs if c.kwargs["BLOCK_N"] == 16]
    wide = [c for c in configs if c.kwargs["BLOCK_M"] > 16 and c.kwargs["BLOCK_N"] > 16]
    if m <= 64:
        return [c for c in wide if c.kwargs["BLOCK_M"] == 64]
    if triton.cdiv(m, 128) * triton.cdiv(n, 128) >= _SMS:
        wide = [c for c in wide if c.kwargs["BLOCK_M"] > 64]
    return wide


def _tuned(configs):
    return triton.autotune(
        configs=list(configs),
        key=["M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn", "HAS_BIAS"],
        prune_configs_by={"early_config_prune": _prune},
    )(_gemm_kernel)


_gemm_half = _tuned(_HALF_CONFIGS)
_gemm_float = _tuned(_FLOAT_CONFIGS)


def _gemm(a, b, out, bias=None):
    """out[i] = a[i] @ b[i] (+ bias) for 3-D a [Bt, M, K], b [Bt, K, N], out [Bt, M, N] (any strides)."""
    batch, M, K = a.shape
    N = b.shape[2]
    if out.numel() == 0:
        return out
    args = (
        a,
        b,
        out,
        bias if bias is not None else a,
        M,
        N,
        K,
        a.stride(0),
        a.stride(1),
        a.stride(2),
        b.stride(0),
        b.stride(1),
        b.stride(2),
        out.stride(0),
        out.stride(1),
        out.stride(2),
    )

    def grid(meta):
        return (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]), batch)

    if a.device.type == "cpu":  # Triton's CPU interpreter: one fixed tile, no tuning
        block_m = 16 if M <= 16 else (64 if M <= 64 else 128)
        block_n = 16 if N <= 16 and M > 16 else (64 if N <= 64 or M <= 16 else 128)
        _gemm_kernel[grid](
            *args,
            HAS_BIAS=bias is not None,
            PRECISION="ieee" if a.dtype == torch.float32 else "default",
            WIDEN=a.dtype == torch.bfloat16,
            BLOCK_M=block_m,
            BLOCK_N=block_n,
            BLOCK_K=32 if a.dtype == torch.float32 else 64,
            GROUP_M=8,
        )
    elif a.dtype == torch.float32:
        _gemm_float[grid](*args, HAS_BIAS=bias is not None, PRECISION="ieee", WIDEN=False)
    else:
        _gemm_half[grid](*args, HAS_BIAS=bias is not None, PRECISION="default", WIDEN=False)
    return out


def linear(input, weight, bias=None):
    K = input.shape[-1]
    N = weight.shape[0]
    lead = list(input.shape[:-1])
    rows = 1
    for size in lead:
        rows *= size
    x2 = input.reshape(rows, K)
    out = torch.empty((rows, N), dtype=input.dtype, device=input.device)
    _gemm(x2.unsqueeze(0), weight.t().unsqueeze(0), out.unsqueeze(0), bias)
    return out.reshape(lead + [N])
