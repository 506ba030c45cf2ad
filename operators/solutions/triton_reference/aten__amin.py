"""Triton reference solution for aten::amin (`amin`, `amin.out`).

The input is viewed as (A, R, B): A kept rows, R reduced elements, B kept trailing columns, so a contiguous
input reduced over a run of adjacent dims needs no copy (other inputs are permuted and copied once). Each
program keeps a running (BLOCK_R, BLOCK_B) minimum in fp32 (fp64 for fp64) in which NaN, once seen, stays (NaN
propagates, as in torch). When there are too few (A, B) tiles to fill the GPU (e.g. a [4096, 14336] input
reduced over dim 0: 112 column tiles of 4096 rows each), the R axis is split across programs and a second pass
takes the minimum of the partials. `amin.out` writes straight into a contiguous `out` of the result's shape
and dtype. Floating inputs only.
"""

import torch
import triton
import triton.language as tl

# split R when there are fewer tiles than about two per SM of a large GPU (132 SMs on an H200) ...
SPLIT_BELOW_TILES = 256
# ... aiming at about eight programs per SM, each still reading at least this many elements
TARGET_PROGRAMS = 1024
MIN_SPLIT_ELEMENTS = 8192


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
    for r in range(r_start, r_end, BLOCK_R):
        offs_r = r + tl.arange(0, BLOCK_R)
        mask = (offs_r[:, None] < r_end) & (offs_b[None, :] < B)
        ptrs = base + offs_r[:, None].to(tl.int64) * B + offs_b[None, :]
        v = tl.load(ptrs, mask=mask, other=float("inf")).to(ACC)
        # a NaN lane stays NaN: nothing compares below it, and NaN only replaces a number
        acc = tl.where((v < acc) | (v != v), v, acc)
    result = tl.min(acc, axis=0)
    result = tl.where(tl.max((acc != acc).to(tl.int32), axis=0) > 0, float("nan"), result)
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


def _block_shape(R, B):
    if B == 1:
        return min(triton.next_power_of_2(R), 4096), 1
    block_b = min(triton.next_power_of_2(B), 128)
    return min(triton.next_power_of_2(R), max(1, 4096 // block_b)), block_b


def _split_rows(A, R, B, block_r, block_b):
    """(splits, r_per_split): one split unless the (A, B) tiles are too few to fill the GPU; r_per_split is a
    multiple of block_r so chunks start on block boundaries."""
    tiles = A * triton.cdiv(B, block_b)
    if tiles >= SPLIT_BELOW_TILES:
        return 1, R
    r_per_split = max(triton.cdiv(R, triton.cdiv(TARGET_PROGRAMS, tiles)), MIN_SPLIT_ELEMENTS // min(B, block_b))
    r_per_split = triton.cdiv(r_per_split, block_r) * block_r
    return triton.cdiv(R, r_per_split), r_per_split


def _launch(src, dst, A, R, B, acc, splits=1, r_per_split=None):
    block_r, block_b = _block_shape(R, B)
    grid = (A, triton.cdiv(B, block_b), splits)
    r_per_split = R if r_per_split is None else r_per_split
    _amin_tile_kernel[grid](src, dst, R, B, r_per_split, splits, BLOCK_R=block_r, BLOCK_B=block_b, ACC=acc)


def _result_shape(x, dims, keepdim):
    nd = x.dim()
    norm_dims = sorted({d % nd for d in dims}) if (dims and nd) else list(range(nd))
    if keepdim:
        return [1 if d in norm_dims else s for d, s in enumerate(x.shape)]
    return [s for d, s in enumerate(x.shape) if d not in norm_dims]


def _reduce_into(x, dims, out):
    """Write amin of x over dims into out: contiguous, of the result's shape and x's dtype."""
    if out.numel() == 0:
        return out
    if x.numel() == 0:
        raise RuntimeError("amin(): expected a non-empty input to reduce over")
    x3, A, R, B, _ = _as_arr(x, dims)
    acc = _tl_acc(x.dtype)
    splits, r_per_split = _split_rows(A, R, B, *_block_shape(R, B))
    if splits == 1:
        _launch(x3, out, A, R, B, acc)
        return out
    partial_dtype = torch.float64 if acc == tl.float64 else torch.float32
    partial = torch.empty((A, splits, B), dtype=partial_dtype, device=x.device)
    _launch(x3, partial, A, R, B, acc, splits, r_per_split)
    _launch(partial, out, A, splits, B, acc)
    return out


def _dims(dim):
    return list(dim) if not isinstance(dim, int) else [dim]


def amin(self, dim=(), keepdim=False):
    shape = _result_shape(self, _dims(dim), keepdim)
    return _reduce_into(self, _dims(dim), torch.empty(shape, dtype=self.dtype, device=self.device))


def amin_out(self, dim=(), keepdim=False, *, out):
    shape = _result_shape(self, _dims(dim), keepdim)
    if list(out.shape) == shape and out.dtype == self.dtype and out.is_contiguous():
        return _reduce_into(self, _dims(dim), out)
    result = _reduce_into(self, _dims(dim), torch.empty(shape, dtype=self.dtype, device=self.device))
    if list(out.shape) != shape:
        out.resize_(shape)  # as ATen's resize_output: amin.out sizes `out` to the result
    out.copy_(result)
    return out
