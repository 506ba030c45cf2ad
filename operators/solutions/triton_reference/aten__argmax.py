"""Triton reference solution for aten::argmax.

The input is viewed as (A, R, B) (A kept rows, R = the reduced dim, B kept trailing columns; dim=None reduces
the flattened input). Each program keeps, per lane of a (BLOCK_R, BLOCK_B) tile, the best value, its index and
whether it is NaN; lanes only replace their best on a strictly greater value (or a first NaN), so every lane
holds its first maximum. The tile is then reduced: the winning value (NaN beats everything) and, among lanes
holding it, the smallest index — torch's first-occurrence rule.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _argmax_kernel(x_ptr, out_ptr, R, B, BLOCK_R: tl.constexpr, BLOCK_B: tl.constexpr):
    pid_a = tl.program_id(0).to(tl.int64)
    pid_b = tl.program_id(1)
    offs_b = pid_b * BLOCK_B + tl.arange(0, BLOCK_B)
    base = x_ptr + pid_a * R * B
    best = tl.full((BLOCK_R, BLOCK_B), float("-inf"), dtype=tl.float32)
    best_idx = tl.full((BLOCK_R, BLOCK_B), 2147483647, dtype=tl.int64)
    best_nan = tl.zeros((BLOCK_R, BLOCK_B), dtype=tl.int32)
    for r in range(0, R, BLOCK_R):
        offs_r = r + tl.arange(0, BLOCK_R)
        mask = (offs_r[:, None] < R) & (offs_b[None, :] < B)
        ptrs = base + offs_r[:, None].to(tl.int64) * B + offs_b[None, :]
        v = tl.load(ptrs, mask=mask, other=float("-inf")).to(tl.float32)
        is_nan = (v != v).to(tl.int32)
        idx = tl.broadcast_to(offs_r[:, None].to(tl.int64), (BLOCK_R, BLOCK_B))
        take = mask & (((is_nan == 1) & (best_nan == 0)) | ((best_nan == 0) & (v > best)))
        # masked lanes that never saw a valid element still need an index for an all -inf slice
        take = take | (mask & (best_idx == 2147483647))
        best = tl.where(take, v, best)
        best_idx = tl.where(take, idx, best_idx)
        best_nan = tl.where(take, is_nan, best_nan)
    any_nan = tl.max(best_nan, axis=0)
    top = tl.max(tl.where(best_nan == 1, float("-inf"), best), axis=0)
    winner = tl.where(any_nan[None, :] > 0, best_nan == 1, (best == top[None, :]) & (best_nan == 0))
    result = tl.min(tl.where(winner, best_idx, 2147483647), axis=0)
    tl.store(out_ptr + pid_a * B + offs_b, result, mask=offs_b < B)


def _prod(values):
    result = 1
    for v in values:
        result *= int(v)
    return result


def argmax(self, dim=None, keepdim=False):
    x = self
    if dim is None:
        out_shape = [1] * x.dim() if keepdim else []
        x3, A, R, B = x.contiguous(), 1, x.numel(), 1
    else:
        nd = max(x.dim(), 1)
        d = dim % nd
        shape = list(x.shape) if x.dim() else [1]
        out_shape = (
            [1 if i == d else s for i, s in enumerate(shape)] if keepdim else [s for i, s in enumerate(shape) if i != d]
        )
        if x.dim() == 0:
            out_shape = []
        x3 = x.contiguous()
        A, R, B = _prod(shape[:d]), shape[d], _prod(shape[d + 1 :])
    if R == 0:
        raise RuntimeError("argmax(): expected a non-empty dimension to reduce over")
    out = torch.empty(out_shape, dtype=torch.int64, device=x.device)
    if out.numel() == 0:
        return out
    if B == 1:
        block_b, block_r = 1, min(triton.next_power_of_2(R), 4096)
    else:
        block_b = min(triton.next_power_of_2(B), 64)
        block_r = min(triton.next_power_of_2(R), max(1, 2048 // block_b))
    _argmax_kernel[(A, triton.cdiv(B, block_b))](x3, out, R, B, BLOCK_R=block_r, BLOCK_B=block_b)
    return out
