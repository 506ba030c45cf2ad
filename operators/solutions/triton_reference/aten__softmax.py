"""Triton reference solution for aten::softmax (`softmax.int`).

The input is viewed as (A, R, B): R = the softmax dim, A the dims before it, B the dims after it (B = 1 for
the last dim). Rows that fit one block (R <= 8192) are loaded once: max, exp, sum and the normalized store
happen in registers. Longer rows use a one-pass online max/sum (rescaling the running sum whenever the
running max grows) and a second pass that writes exp(x - max) / sum. All math is fp32. A slice that is
entirely -inf gives NaN, as torch does.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_kernel(x_ptr, out_ptr, R, B, BLOCK_R: tl.constexpr, BLOCK_B: tl.constexpr, SINGLE: tl.constexpr):
    pid_a = tl.program_id(0).to(tl.int64)
    pid_b = tl.program_id(1)
    offs_b = pid_b * BLOCK_B + tl.arange(0, BLOCK_B)
    in_base = x_ptr + pid_a * R * B
    out_base = out_ptr + pid_a * R * B
    if SINGLE:
        offs_r = tl.arange(0, BLOCK_R)
        mask = (offs_r[:, None] < R) & (offs_b[None, :] < B)
        offs = offs_r[:, None].to(tl.int64) * B + offs_b[None, :]
        x = tl.load(in_base + offs, mask=mask, other=float("-inf")).to(tl.float32)
        row_max = tl.max(x, axis=0)
        e = tl.exp(x - row_max[None, :])
        e = tl.where(mask, e, 0.0)
        total = tl.sum(e, axis=0)
        tl.store(out_base + offs, e / total[None, :], mask=mask)
    else:
        run_max = tl.full((BLOCK_B,), float("-inf"), dtype=tl.float32)
        run_sum = tl.zeros((BLOCK_B,), dtype=tl.float32)
        for r in range(0, R, BLOCK_R):
            offs_r = r + tl.arange(0, BLOCK_R)
            mask = (offs_r[:, None] < R) & (offs_b[None, :] < B)
            offs = offs_r[:, None].to(tl.int64) * B + offs_b[None, :]
            x = tl.load(in_base + offs, mask=mask, other=float("-inf")).to(tl.float32)
            new_max = tl.maximum(run_max, tl.max(x, axis=0))
            # while everything seen is -inf, keep the sum at 0 instead of exp(-inf - -inf) = NaN
            alpha = tl.where(new_max == float("-inf"), 1.0, tl.exp(run_max - new_max))
            p = tl.where(new_max[None, :] == float("-inf"), 0.0, tl.exp(x - new_max[None, :]))
            run_sum = run_sum * alpha + tl.sum(p, axis=0)
            run_max = new_max
        for r in range(0, R, BLOCK_R):
            offs_r = r + tl.arange(0, BLOCK_R)
            mask = (offs_r[:, None] < R) & (offs_b[None, :] < B)
            offs = offs_r[:, None].to(tl.int64) * B + offs_b[None, :]
            x = tl.load(in_base + offs, mask=mask, other=float("-inf")).to(tl.float32)
            tl.store(out_base + offs, tl.exp(x - run_max[None, :]) / run_sum[None, :], mask=mask)


def _prod(values):
    result = 1
    for v in values:
        result *= int(v)
    return result


def _softmax_forward(x, dim, out_dtype):
    out = torch.empty(x.shape, dtype=out_dtype, device=x.device)
    if x.numel() == 0:
        return out
    shape = list(x.shape) if x.dim() else [1]
    d = dim % len(shape)
    A, R, B = _prod(shape[:d]), shape[d], _prod(shape[d + 1 :])
    src = x.contiguous()
    if B == 1:
        block_b = 1
        block_r = triton.next_power_of_2(R) if R <= 8192 else 4096
    else:
        block_b = min(triton.next_power_of_2(B), 32)
        block_r = min(triton.next_power_of_2(R), max(1, 4096 // block_b))
    single = block_r >= R
    _softmax_kernel[(A, triton.cdiv(B, block_b))](src, out, R, B, BLOCK_R=block_r, BLOCK_B=block_b, SINGLE=single)
    return out


def softmax_int(self, dim, dtype=None):
    return _softmax_forward(self, dim, dtype if dtype is not None else self.dtype)
