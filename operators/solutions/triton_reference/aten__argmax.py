"""Triton reference solution for aten::argmax.

The input is viewed as (A, R, B) (A kept rows, R = the reduced dim, B kept trailing columns; dim=None reduces
the flattened input). A program scans a range of R for a (BLOCK_R, BLOCK_B) tile, keeping per lane the best
value and its index; NaN lives in the value itself (a lane that holds NaN never leaves it). Lanes only replace
their best on a strictly greater value (or a first NaN), so every lane holds its first maximum. The tile is then
reduced: the winning value (NaN beats everything) and, among lanes holding it, the smallest index — torch's
first-occurrence rule.

When the (A, B) tiles alone cannot fill the GPU (e.g. 64 rows of 128256 elements: 64 programs streaming half a
megabyte each), R is split into chunks: stage 1 writes each chunk's winning value (NaN kept) and index into an
(A, splits, B) buffer, and stage 2 runs the same kernel over the splits, taking indices from that buffer. The
chunks are in index order and each holds its own first maximum, so the smallest winning index is still the
first occurrence.
"""

import torch
import triton
import triton.language as tl

# split R when there are fewer tiles than about two per SM of a large GPU (132 SMs on an H200) ...
SPLIT_BELOW_TILES = 256
# ... aiming at about eight programs per SM, each still reading at least this many elements
TARGET_PROGRAMS = 1024
MIN_SPLIT_ELEMENTS = 8192
INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1


@triton.jit
def _argmax_kernel(
    x_ptr,
    idx_ptr,
    out_val_ptr,
    out_idx_ptr,
    R,
    B,
    r_per_split,
    num_splits,
    BLOCK_R: tl.constexpr,
    BLOCK_B: tl.constexpr,
    ACC: tl.constexpr,
    IDX: tl.constexpr,
    NO_INDEX: tl.constexpr,
    IDX_FROM_PTR: tl.constexpr,
    WRITE_VALUE: tl.constexpr,
):
    """Reduce rows [r_start, r_end) of the (A, R, B) array for one (a, B-tile, split). Indices are the row
    numbers, or (IDX_FROM_PTR: stage 2) read from idx_ptr laid out like x."""
    pid_a = tl.program_id(0).to(tl.int64)
    pid_b = tl.program_id(1)
    pid_s = tl.program_id(2)
    offs_b = pid_b * BLOCK_B + tl.arange(0, BLOCK_B)
    r_start = pid_s * r_per_split
    r_end = tl.minimum(r_start + r_per_split, R)
    row_base = pid_a * R * B
    best = tl.full((BLOCK_R, BLOCK_B), float("-inf"), dtype=ACC)
    no_index = tl.full((BLOCK_R, BLOCK_B), NO_INDEX, dtype=IDX)
    best_idx = no_index
    for r in range(r_start, r_end, BLOCK_R):
        offs_r = r + tl.arange(0, BLOCK_R)
        mask = (offs_r[:, None] < r_end) & (offs_b[None, :] < B)
        offs = row_base + offs_r[:, None].to(tl.int64) * B + offs_b[None, :]
        v = tl.load(x_ptr + offs, mask=mask, other=float("-inf")).to(ACC)
        if IDX_FROM_PTR:
            idx = tl.load(idx_ptr + offs, mask=mask, other=NO_INDEX).to(IDX)
        else:
            idx = tl.broadcast_to(offs_r[:, None].to(IDX), (BLOCK_R, BLOCK_B))
        take = (best == best) & ((v != v) | (v > best))
        # a lane that has seen no valid element yet takes the first one, so an all -inf slice still gets an index
        take = mask & (take | (best_idx == NO_INDEX))
        best = tl.where(take, v, best)
        best_idx = tl.where(take, idx, best_idx)
    best_is_nan = best != best
    any_nan = tl.max(best_is_nan.to(tl.int32), axis=0)
    top = tl.max(tl.where(best_is_nan, float("-inf"), best), axis=0)
    winner = tl.where(any_nan[None, :] > 0, best_is_nan, (best == top[None, :]) & ~best_is_nan)
    result = tl.min(tl.where(winner, best_idx, no_index), axis=0)
    out_offs = (pid_a * num_splits + pid_s) * B + offs_b
    tl.store(out_idx_ptr + out_offs, result, mask=offs_b < B)
    if WRITE_VALUE:
        top = tl.where(any_nan > 0, float("nan"), top)
        tl.store(out_val_ptr + out_offs, top, mask=offs_b < B)


def _prod(values):
    result = 1
    for v in values:
        result *= int(v)
    return result


def _block_shape(R, B):
    if B == 1:
        return min(triton.next_power_of_2(R), 4096), 1
    block_b = min(triton.next_power_of_2(B), 64)
    return min(triton.next_power_of_2(R), max(1, 2048 // block_b)), block_b


def _split_rows(A, R, B, block_r, block_b):
    """(splits, r_per_split): one split unless the (A, B) tiles are too few to fill the GPU; r_per_split is a
    multiple of block_r so chunks start on block boundaries."""
    tiles = A * triton.cdiv(B, block_b)
    if tiles >= SPLIT_BELOW_TILES:
        return 1, R
    r_per_split = max(triton.cdiv(R, triton.cdiv(TARGET_PROGRAMS, tiles)), MIN_SPLIT_ELEMENTS // min(B, block_b))
    r_per_split = triton.cdiv(r_per_split, block_r) * block_r
    return triton.cdiv(R, r_per_split), r_per_split


def _launch(x, idx, out_val, out_idx, A, R, B, acc, idx_type, splits=1, r_per_split=None):
    block_r, block_b = _block_shape(R, B)
    _argmax_kernel[(A, triton.cdiv(B, block_b), splits)](
        x,
        idx,
        out_val,
        out_idx,
        R,
        B,
        R if r_per_split is None else r_per_split,
        splits,
        BLOCK_R=block_r,
        BLOCK_B=block_b,
        ACC=acc,
        IDX=idx_type,
        NO_INDEX=INT32_MAX if idx_type == tl.int32 else INT64_MAX,
        IDX_FROM_PTR=idx is not None,
        WRITE_VALUE=out_val is not None,
    )


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
    # float64 keeps its precision (distinct doubles may round to one float32); int32 indices halve the
    # per-lane state whenever R leaves room for the INT32_MAX "no index yet" marker (NO_INDEX)
    acc, partial_dtype = (tl.float64, torch.float64) if x.dtype == torch.float64 else (tl.float32, torch.float32)
    idx_type, partial_idx_dtype = (tl.int32, torch.int32) if R < INT32_MAX else (tl.int64, torch.int64)
    splits, r_per_split = _split_rows(A, R, B, *_block_shape(R, B))
    if splits == 1:
        _launch(x3, None, None, out, A, R, B, acc, idx_type)
        return out
    partial_val = torch.empty((A, splits, B), dtype=partial_dtype, device=x.device)
    partial_idx = torch.empty((A, splits, B), dtype=partial_idx_dtype, device=x.device)
    _launch(x3, None, partial_val, partial_idx, A, R, B, acc, idx_type, splits, r_per_split)
    _launch(partial_val, partial_idx, None, out, A, splits, B, acc, idx_type)
    return out
