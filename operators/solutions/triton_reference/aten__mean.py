"""Triton reference solution for aten::mean (`mean`, `mean.dim`).

The input is viewed as (A, R, B): A kept rows, R reduced elements, B kept trailing columns, so a contiguous
input reduced over a run of adjacent dims needs no copy (other inputs are permuted and copied once). Sums
accumulate in fp32 (fp64 for fp64, int64 for integers and bool).

Two kernels, both reading memory along its contiguous axis with 16-byte vector loads. A load is a tile of one
vector per thread (1024 bf16 / 512 fp32 elements for 4 warps); a step issues UNROLL = 8 such loads before adding
them, so each thread has 128 bytes in flight while its accumulator holds one vector (few registers, so many
programs fit on an SM: bandwidth comes from bytes in flight per SM).
- B == 1 (the reduced elements are contiguous, e.g. dim=-1): a program takes BLOCK_A whole rows (several when
  rows are short) and walks R in (BLOCK_A, BLOCK_R) tiles.
- B > 1 (a column reduction, e.g. dim=0 of a row-major matrix): a program takes BLOCK_B contiguous columns and
  walks the rows in (BLOCK_R, BLOCK_B) tiles.
When those programs are too few to fill the GPU (a [4096, 14336] input over dim 0 has only 112 column tiles, a
full reduction has one), R is split into chunks of whole steps across programs and a second small pass adds
each chunk's partial (fp32, fp64 or int64) in chunk order. The last pass multiplies by 1/R.
"""

import torch
import triton
import triton.language as tl

NUM_WARPS = 4
UNROLL = 8  # loads per step (written out in the kernels): each thread's loads in flight
# split R when the (A, B) programs are fewer than this (about 8 per SM of a 132-SM H200) ...
SPLIT_BELOW_PROGRAMS = 1024
# ... into about this many programs (several waves, so the last wave is short), ...
TARGET_PROGRAMS = 4096
# ... each chunk at least this many steps
MIN_STEPS_PER_SPLIT = 2


@triton.jit
def _mean_rows_kernel(
    x_ptr,
    out_ptr,
    A,
    R,
    r_per_split,
    num_splits,
    scale,
    BLOCK_A: tl.constexpr,
    BLOCK_R: tl.constexpr,
    ACC: tl.constexpr,
    SCALE: tl.constexpr,
):
    """out[a * num_splits + s] = sum of x[a, s * r_per_split : (s + 1) * r_per_split] for x (A, R) row-major."""
    pid_a = tl.program_id(0)
    pid_s = tl.program_id(1)
    rows = pid_a * BLOCK_A + tl.arange(0, BLOCK_A)
    ok = (rows < A)[:, None]
    r_start = pid_s.to(tl.int64) * r_per_split
    n = tl.minimum(r_per_split, R - r_start).to(tl.int32)  # this chunk's length
    n_full = (n // (8 * BLOCK_R)) * (8 * BLOCK_R)  # covered by whole steps: no bound check along R
    cols = tl.arange(0, BLOCK_R)[None, :]
    ptrs = x_ptr + (rows.to(tl.int64)[:, None] * R + r_start) + cols
    acc = tl.zeros((BLOCK_A, BLOCK_R), dtype=ACC)
    # a step: eight independent tile loads, then a tree of adds, so that all eight are in flight together
    for r in range(0, n_full, 8 * BLOCK_R):
        p = ptrs + r
        x0 = tl.load(p, mask=ok, other=0).to(ACC)
        x1 = tl.load(p + BLOCK_R, mask=ok, other=0).to(ACC)
        x2 = tl.load(p + 2 * BLOCK_R, mask=ok, other=0).to(ACC)
        x3 = tl.load(p + 3 * BLOCK_R, mask=ok, other=0).to(ACC)
        x4 = tl.load(p + 4 * BLOCK_R, mask=ok, other=0).to(ACC)
        x5 = tl.load(p + 5 * BLOCK_R, mask=ok, other=0).to(ACC)
        x6 = tl.load(p + 6 * BLOCK_R, mask=ok, other=0).to(ACC)
        x7 = tl.load(p + 7 * BLOCK_R, mask=ok, other=0).to(ACC)
        acc += ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7))
    if n_full < n:  # the last, partial step
        p = ptrs + n_full
        c = cols + n_full
        x0 = tl.load(p, mask=ok & (c < n), other=0).to(ACC)
        x1 = tl.load(p + BLOCK_R, mask=ok & (c < n - BLOCK_R), other=0).to(ACC)
        x2 = tl.load(p + 2 * BLOCK_R, mask=ok & (c < n - 2 * BLOCK_R), other=0).to(ACC)
        x3 = tl.load(p + 3 * BLOCK_R, mask=ok & (c < n - 3 * BLOCK_R), other=0).to(ACC)
        x4 = tl.load(p + 4 * BLOCK_R, mask=ok & (c < n - 4 * BLOCK_R), other=0).to(ACC)
        x5 = tl.load(p + 5 * BLOCK_R, mask=ok & (c < n - 5 * BLOCK_R), other=0).to(ACC)
        x6 = tl.load(p + 6 * BLOCK_R, mask=ok & (c < n - 6 * BLOCK_R), other=0).to(ACC)
        x7 = tl.load(p + 7 * BLOCK_R, mask=ok & (c < n - 7 * BLOCK_R), other=0).to(ACC)
        acc += ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7))
    total = tl.sum(acc, axis=1)
    if SCALE:
        total = total * scale
    tl.store(out_ptr + rows.to(tl.int64) * num_splits + pid_s, total, mask=rows < A)


@triton.jit
def _mean_cols_kernel(
    x_ptr,
    out_ptr,
    R,
    B,
    num_b_tiles,
    r_per_split,
    num_splits,
    scale,
    BLOCK_R: tl.constexpr,
    BLOCK_B: tl.constexpr,
    ACC: tl.constexpr,
    SCALE: tl.constexpr,
):
    """out[(a * num_splits + s) * B + b] = sum over the rows r of chunk s of x[a, r, b] for x (A, R, B) row-major."""
    pid = tl.program_id(0)
    pid_s = tl.program_id(1)
    pid_a = pid // num_b_tiles
    pid_b = pid - pid_a * num_b_tiles
    cols = pid_b * BLOCK_B + tl.arange(0, BLOCK_B)
    ok = (cols < B)[None, :]
    r_start = pid_s.to(tl.int64) * r_per_split
    n = tl.minimum(r_per_split, R - r_start).to(tl.int32)  # this chunk's length
    n_full = (n // (8 * BLOCK_R)) * (8 * BLOCK_R)  # covered by whole steps: no bound check along R
    rows = tl.arange(0, BLOCK_R)[:, None]
    b64 = B.to(tl.int64)
    ptrs = x_ptr + (pid_a.to(tl.int64) * R + r_start) * b64 + (rows.to(tl.int64) * b64 + cols[None, :])
    d = BLOCK_R * b64  # from one tile to the next
    acc = tl.zeros((BLOCK_R, BLOCK_B), dtype=ACC)
    # a step: eight independent tile loads, then a tree of adds, so that all eight are in flight together
    for r in range(0, n_full, 8 * BLOCK_R):
        p = ptrs + r * b64
        x0 = tl.load(p, mask=ok, other=0).to(ACC)
        x1 = tl.load(p + d, mask=ok, other=0).to(ACC)
        x2 = tl.load(p + 2 * d, mask=ok, other=0).to(ACC)
        x3 = tl.load(p + 3 * d, mask=ok, other=0).to(ACC)
        x4 = tl.load(p + 4 * d, mask=ok, other=0).to(ACC)
        x5 = tl.load(p + 5 * d, mask=ok, other=0).to(ACC)
        x6 = tl.load(p + 6 * d, mask=ok, other=0).to(ACC)
        x7 = tl.load(p + 7 * d, mask=ok, other=0).to(ACC)
        acc += ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7))
    if n_full < n:  # the last, partial step
        p = ptrs + n_full * b64
        c = rows + n_full
        x0 = tl.load(p, mask=ok & (c < n), other=0).to(ACC)
        x1 = tl.load(p + d, mask=ok & (c < n - BLOCK_R), other=0).to(ACC)
        x2 = tl.load(p + 2 * d, mask=ok & (c < n - 2 * BLOCK_R), other=0).to(ACC)
        x3 = tl.load(p + 3 * d, mask=ok & (c < n - 3 * BLOCK_R), other=0).to(ACC)
        x4 = tl.load(p + 4 * d, mask=ok & (c < n - 4 * BLOCK_R), other=0).to(ACC)
        x5 = tl.load(p + 5 * d, mask=ok & (c < n - 5 * BLOCK_R), other=0).to(ACC)
        x6 = tl.load(p + 6 * d, mask=ok & (c < n - 6 * BLOCK_R), other=0).to(ACC)
        x7 = tl.load(p + 7 * d, mask=ok & (c < n - 7 * BLOCK_R), other=0).to(ACC)
        acc += ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7))
    total = tl.sum(acc, axis=0)
    if SCALE:
        total = total * scale
    out_offs = (pid_a * num_splits + pid_s).to(tl.int64) * B + cols
    tl.store(out_ptr + out_offs, total, mask=cols < B)


def _tl_acc(dtype):
    if dtype == torch.float64:
        return tl.float64
    if dtype.is_floating_point:
        return tl.float32
    return tl.int64


def _prod(values):
    result = 1
    for v in values:
        result *= int(v)
    return result


def _as_arr(x, dims):
    """(x3, A, R, B, kept_dims): x3 contiguous memory readable as (A, R, B)."""
    nd = x.dim()
    if nd == 0:
        return x.reshape(1), 1, 1, 1, []
    dims = sorted({d % nd for d in dims}) if dims else list(range(nd))
    kept = [d for d in range(nd) if d not in dims]
    shape = list(x.shape)
    adjacent = dims == list(range(dims[0], dims[-1] + 1))
    if x.is_contiguous() and adjacent:
        return x, _prod(shape[: dims[0]]), _prod(shape[d] for d in dims), _prod(shape[dims[-1] + 1 :]), dims
    moved = x.permute(kept + dims).contiguous()
    return moved, _prod(shape[d] for d in kept), _prod(shape[d] for d in dims), 1, dims


def _plan(A, R, B, itemsize):
    """(BLOCK_A, BLOCK_R, BLOCK_B, programs): a load is a tile of one 16-byte vector per thread; a step
    (UNROLL loads along R) covers at most about R, so that short rows are packed, not masked off."""
    tile = 32 * NUM_WARPS * max(1, 16 // itemsize)
    r_cap = max(1, triton.next_power_of_2(max(R, 1)) // UNROLL)
    if B == 1:
        block_r = min(tile, r_cap)
        block_a = min(tile // block_r, triton.next_power_of_2(A))
        return block_a, block_r, 1, triton.cdiv(A, block_a)
    block_b = min(triton.next_power_of_2(B), 128)
    block_r = min(max(1, tile // block_b), r_cap)
    return 1, block_r, block_b, A * triton.cdiv(B, block_b)


def _split(A, R, B, itemsize):
    """(splits, r_per_split): split R only when the (A, B) programs cannot fill the GPU; chunks are whole steps."""
    _, block_r, _, programs = _plan(A, R, B, itemsize)
    step = UNROLL * block_r
    steps = triton.cdiv(R, step)
    if programs >= SPLIT_BELOW_PROGRAMS or steps < 2 * MIN_STEPS_PER_SPLIT:
        return 1, R
    splits = min(triton.cdiv(TARGET_PROGRAMS, programs), steps // MIN_STEPS_PER_SPLIT)
    r_per_split = triton.cdiv(steps, splits) * step
    return triton.cdiv(R, r_per_split), r_per_split


def _launch(src, dst, A, R, B, acc, splits=1, r_per_split=None, scale=1.0):
    block_a, block_r, block_b, programs = _plan(A, R, B, src.element_size())
    r_per_split = R if r_per_split is None else r_per_split
    meta = dict(ACC=acc, SCALE=scale != 1.0, num_warps=NUM_WARPS)
    if B == 1:
        _mean_rows_kernel[(programs, splits)](
            src, dst, A, R, r_per_split, splits, scale, BLOCK_A=block_a, BLOCK_R=block_r, **meta
        )
    else:
        num_b_tiles = triton.cdiv(B, block_b)
        _mean_cols_kernel[(programs, splits)](
            src, dst, R, B, num_b_tiles, r_per_split, splits, scale, BLOCK_R=block_r, BLOCK_B=block_b, **meta
        )


def _reduce(x, dims, keepdim, out_dtype):
    nd = x.dim()
    norm_dims = sorted({d % nd for d in dims}) if (dims and nd) else list(range(nd))
    out_shape = (
        [1 if d in norm_dims else s for d, s in enumerate(x.shape)]
        if keepdim
        else [s for d, s in enumerate(x.shape) if d not in norm_dims]
    )
    out = torch.empty(out_shape, dtype=out_dtype, device=x.device)
    if out.numel() == 0:
        return out
    x3, A, R, B, _ = _as_arr(x, dims)
    scale = 1.0 / R if R > 0 else float("nan")
    acc = _tl_acc(x.dtype if out_dtype == x.dtype else out_dtype)
    splits, r_per_split = _split(A, R, B, x3.element_size())
    if splits == 1:
        _launch(x3, out, A, R, B, acc, scale=scale)
        return out
    partial_dtype = torch.float64 if acc == tl.float64 else (torch.int64 if acc == tl.int64 else torch.float32)
    partial = torch.empty((A, splits, B), dtype=partial_dtype, device=x.device)
    _launch(x3, partial, A, R, B, acc, splits, r_per_split)
    _launch(partial, out, A, splits, B, acc, scale=scale)
    return out


def mean(self, *, dtype=None):
    return _reduce(self, [], False, dtype or self.dtype)


def mean_dim(self, dim, keepdim=False, *, dtype=None):
    return _reduce(self, list(dim) if dim is not None else [], keepdim, dtype or self.dtype)
