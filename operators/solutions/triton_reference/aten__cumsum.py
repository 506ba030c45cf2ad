"""Triton reference solution for aten::cumsum.

The input is viewed as (A, R, B) with R the scanned dim. Each program scans a (BLOCK_R, BLOCK_B) tile at a
time with tl.cumsum along R and carries the running total of the previous tiles (fp32 for floating inputs,
int64 for integer and bool inputs, whose result is int64 as in torch). An explicit `dtype` casts first.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _cumsum_kernel(x_ptr, out_ptr, R, B, BLOCK_R: tl.constexpr, BLOCK_B: tl.constexpr, ACC: tl.constexpr):
    pid_a = tl.program_id(0).to(tl.int64)
    pid_b = tl.program_id(1)
    offs_b = pid_b * BLOCK_B + tl.arange(0, BLOCK_B)
    in_base = x_ptr + pid_a * R * B
    out_base = out_ptr + pid_a * R * B
    carry = tl.zeros((BLOCK_B,), dtype=ACC)
    for r in range(0, R, BLOCK_R):
        offs_r = r + tl.arange(0, BLOCK_R)
        mask = (offs_r[:, None] < R) & (offs_b[None, :] < B)
        offs = offs_r[:, None].to(tl.int64) * B + offs_b[None, :]
        x = tl.load(in_base + offs, mask=mask, other=0).to(ACC)
        scanned = tl.cumsum(x, axis=0) + carry[None, :]
        tl.store(out_base + offs, scanned, mask=mask)
        carry = carry + tl.sum(x, axis=0)


def _prod(values):
    result = 1
    for v in values:
        result *= int(v)
    return result


def cumsum(self, dim, *, dtype=None):
    if dtype is not None:
        out_dtype = dtype
    elif self.dtype.is_floating_point or self.dtype.is_complex:
        out_dtype = self.dtype
    else:
        out_dtype = torch.int64
    out = torch.empty(self.shape, dtype=out_dtype, device=self.device)
    if self.numel() == 0:
        return out
    shape = list(self.shape) if self.dim() else [1]
    d = dim % len(shape)
    A, R, B = _prod(shape[:d]), shape[d], _prod(shape[d + 1 :])
    if out_dtype == torch.float64:
        acc = tl.float64
    elif out_dtype.is_floating_point:
        acc = tl.float32
    else:
        acc = tl.int64
    src = (self if dtype is None else self.to(dtype)).contiguous()
    if B == 1:
        block_b, block_r = 1, min(triton.next_power_of_2(R), 2048)
    else:
        block_b = min(triton.next_power_of_2(B), 64)
        block_r = min(triton.next_power_of_2(R), max(1, 2048 // block_b))
    _cumsum_kernel[(A, triton.cdiv(B, block_b))](src, out, R, B, BLOCK_R=block_r, BLOCK_B=block_b, ACC=acc)
    return out
