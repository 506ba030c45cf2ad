"""Triton reference solution for aten::amin (`amin`, `amin.out`).

The input is viewed as (A, R, B): A kept rows, R reduced elements, B kept trailing columns, so a contiguous
input reduced over a run of adjacent dims needs no copy (other inputs are permuted and copied once). Each
program keeps a running (BLOCK_R, BLOCK_B) minimum in fp32 plus a NaN flag (NaN propagates, as in torch); when
there are too few (A, B) tiles to fill the GPU the R axis is split across programs and a second pass takes the
minimum of the partials. Floating inputs only.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _amin_tile_kernel(
    x_ptr, out_ptr, R, B, r_per_split, num_splits, BLOCK_R: tl.constexpr, BLOCK_B: tl.constexpr, ACC: tl.constexpr
):
    pid_a = tl.program_id(0).to(tl.int64)
    pid_b = tl.program_id(1)
    pid_s = tl.program_id(2)
    offs_b = pid_b * BLOCK_B + tl.arange(0, BLOCK_B)
    r_start = pid_s * r_per_split
    r_end = tl.minimum(r_start + r_per_split, R)
    base = x_ptr + pid_a * R * B
    acc = tl.full((BLOCK_R, BLOCK_B), float("inf"), dtype=ACC)
    nan_seen = tl.zeros((BLOCK_R, BLOCK_B), dtype=tl.int32)
    for r in range(r_start, r_end, BLOCK_R):
        offs_r = r + tl.arange(0, BLOCK_R)
        mask = (offs_r[:, None] < r_end) & (offs_b[None, :] < B)
        ptrs = base + offs_r[:, None].to(tl.int64) * B + offs_b[None, :]
        v = tl.load(ptrs, mask=mask, other=float("inf")).to(ACC)
        nan_seen = nan_seen | (v != v).to(tl.int32)
        acc = tl.where(v < acc, v, acc)
    result = tl.min(acc, axis=0)
    result = tl.where(tl.max(nan_seen, axis=0) > 0, float("nan"), result)
    out_offs = (pid_a * num_splits + pid_s) * B + offs_b
    tl.store(out_ptr + out_offs, result, mask=offs_b < B)


def _tl_acc(dtype):
    if dtype == torch.float64:
        return tl.float64
    if dtype.is_floating_point:
        return tl.float32
    raise TypeError(f"amin: this solution handles floating inputs only, got {dtype}")


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


def _launch(src, dst, A, R, B, splits, r_per_split, acc):
    if B == 1:
        block_b = 1
        block_r = min(triton.next_power_of_2(max(min(R, r_per_split), 1)), 4096)
    else:
        block_b = min(triton.next_power_of_2(B), 128)
        block_r = min(triton.next_power_of_2(max(min(R, r_per_split), 1)), max(1, 4096 // block_b))
    grid = (A, triton.cdiv(B, block_b), splits)
    _amin_tile_kernel[grid](src, dst, R, B, r_per_split, splits, BLOCK_R=block_r, BLOCK_B=block_b, ACC=acc)


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
    if x.numel() == 0:
        raise RuntimeError("amin(): expected a non-empty input to reduce over")
    x3, A, R, B, _ = _as_arr(x, dims)
    acc = _tl_acc(x.dtype)
    tiles = A * triton.cdiv(B, 128 if B > 1 else 1)
    splits = 1
    if tiles < 512 and R >= 16384:
        splits = min(triton.cdiv(R, 8192), max(1, 2048 // tiles), 1024)
    r_per_split = triton.cdiv(R, splits)
    if splits == 1:
        _launch(x3, out, A, R, B, 1, R, acc)
        return out
    partial_dtype = torch.float64 if acc == tl.float64 else torch.float32
    partial = torch.empty((A, splits, B), dtype=partial_dtype, device=x.device)
    _launch(x3, partial, A, R, B, splits, r_per_split, acc)
    _launch(partial, out, A, splits, B, 1, splits, acc)
    return out


def amin(self, dim=(), keepdim=False):
    return _reduce(self, list(dim) if not isinstance(dim, int) else [dim], keepdim, self.dtype)


def amin_out(self, dim=(), keepdim=False, *, out):
    result = _reduce(self, list(dim) if not isinstance(dim, int) else [dim], keepdim, self.dtype)
    if out.shape != result.shape:
        out.resize_(result.shape)  # as ATen's resize_output: amin.out sizes `out` to the result
    out.copy_(result)
    return out
