"""Triton reference solution for aten::bmm.

One tiled GEMM kernel for C[b] = A[b] @ B[b] (+ bias) over a batch axis, reading every operand through its
strides (row-major, column-major and transposed views need no copy). Tiles are grouped along M (GROUP_M) so
neighbouring programs reuse B tiles from L2. Accumulation is fp32 with tl.dot; float32 inputs use
input_precision="ieee" (no TF32), half inputs use the tensor cores with fp32 accumulation.
On the CPU (the Triton interpreter, whose tl.dot
returns garbage for bfloat16 tiles: measured errors of 1e10) bfloat16 tiles are widened to fp32 first.
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
    IEEE: tl.constexpr,
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
    a_base = a_ptr + batch * stride_ab + offs_m[:, None].to(tl.int64) * stride_am
    b_base = b_ptr + batch * stride_bb + offs_n[None, :].to(tl.int64) * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        kk = k + offs_k
        a = tl.load(
            a_base + kk[None, :].to(tl.int64) * stride_ak, mask=(offs_m[:, None] < M) & (kk[None, :] < K), other=0.0
        )
        b = tl.load(
            b_base + kk[:, None].to(tl.int64) * stride_bk, mask=(kk[:, None] < K) & (offs_n[None, :] < N), other=0.0
        )
        if WIDEN:
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision="ieee")
        elif IEEE:
            acc = tl.dot(a, b, acc, input_precision="ieee")
        else:
            acc = tl.dot(a, b, acc)
    if HAS_BIAS:
        acc += tl.load(bias_ptr + offs_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
    c_ptrs = c_ptr + batch * stride_cb + offs_m[:, None].to(tl.int64) * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def _gemm(a, b, out, bias=None):
    """out[i] = a[i] @ b[i] (+ bias) for 3-D a [Bt, M, K], b [Bt, K, N], out [Bt, M, N] (any strides)."""
    batch, M, K = a.shape
    N = b.shape[2]
    if out.numel() == 0:
        return out
    block_m = 16 if M <= 16 else (64 if M <= 64 else 128)
    block_n = 64 if N <= 64 else 128
    block_k = 32 if a.dtype == torch.float32 else 64
    if M <= 16:
        block_n = 64
    grid = (triton.cdiv(M, block_m) * triton.cdiv(N, block_n), batch)
    _gemm_kernel[grid](
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
        HAS_BIAS=bias is not None,
        IEEE=a.dtype == torch.float32,
        WIDEN=a.device.type == "cpu" and a.dtype == torch.bfloat16,
        BLOCK_M=block_m,
        BLOCK_N=block_n,
        BLOCK_K=block_k,
        GROUP_M=8,
        num_warps=4 if block_m * block_n <= 64 * 64 else 8,
        num_stages=3,
    )
    return out


def bmm(self, mat2):
    if self.dim() != 3 or mat2.dim() != 3 or self.shape[0] != mat2.shape[0] or self.shape[2] != mat2.shape[1]:
        raise RuntimeError(f"bmm: cannot multiply {tuple(self.shape)} and {tuple(mat2.shape)}")
    out = torch.empty((self.shape[0], self.shape[1], mat2.shape[2]), dtype=self.dtype, device=self.device)
    return _gemm(self, mat2, out)
