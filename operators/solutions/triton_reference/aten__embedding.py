"""Triton reference solution for aten::embedding: out[..., :] = weight[indices[...], :] (forward).

Wrappers: `embedding`. A 2-D tiled Triton kernel: each program takes BLOCK_R lookups x BLOCK_D columns, reads the
row ids once (through the indices' strides, up to 6 index dimensions) and copies the weight rows (any weight
strides) into the row-major output. padding_idx / scale_grad_by_freq only matter for the backward pass.
Policy: torch only allocates (torch.empty).
"""

import torch
import triton
import triton.language as tl

MAX_RANK = 6
BLOCK_R = 16
BLOCK_D = 256


@triton.jit
def _strided_offset(offs, s1, s2, s3, s4, s5, t0, t1, t2, t3, t4, t5):
    """Element offset of row-major linear index `offs` over sizes (., s1..s5) with strides t0..t5."""
    i5 = offs % s5
    rest = offs // s5
    i4 = rest % s4
    rest = rest // s4
    i3 = rest % s3
    rest = rest // s3
    i2 = rest % s2
    rest = rest // s2
    i1 = rest % s1
    i0 = rest // s1
    return i0 * t0 + i1 * t1 + i2 * t2 + i3 * t3 + i4 * t4 + i5 * t5


@triton.jit
def _embedding_kernel(
    weight_ptr,
    index_ptr,
    out_ptr,
    rows,
    dim,
    w_row,
    w_col,
    s1,
    s2,
    s3,
    s4,
    s5,
    t0,
    t1,
    t2,
    t3,
    t4,
    t5,
    BLOCK_R: tl.constexpr,
    BLOCK_D: tl.constexpr,
):
    r = tl.program_id(0).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    c = tl.program_id(1).to(tl.int64) * BLOCK_D + tl.arange(0, BLOCK_D)
    r_mask = r < rows
    ids = tl.load(index_ptr + _strided_offset(r, s1, s2, s3, s4, s5, t0, t1, t2, t3, t4, t5), mask=r_mask, other=0)
    mask = r_mask[:, None] & (c < dim)[None, :]
    values = tl.load(weight_ptr + ids.to(tl.int64)[:, None] * w_row + c[None, :] * w_col, mask=mask)
    tl.store(out_ptr + r[:, None] * dim + c[None, :], values, mask=mask)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    if weight.dim() != 2:
        raise RuntimeError("embedding: weight must be 2-D")
    if indices.dim() > MAX_RANK:
        raise RuntimeError(f"embedding: at most {MAX_RANK} index dimensions are supported")
    dim = weight.shape[1]
    out = torch.empty([*indices.shape, dim], dtype=weight.dtype, device=weight.device)
    rows = indices.numel()
    if rows == 0 or dim == 0:
        return out
    pad = MAX_RANK - indices.dim()
    sizes = [1] * pad + list(indices.shape)
    strides = [0] * pad + list(indices.stride())
    grid = (triton.cdiv(rows, BLOCK_R), triton.cdiv(dim, BLOCK_D))
    _embedding_kernel[grid](
        weight,
        indices,
        out,
        rows,
        dim,
        weight.stride(0),
        weight.stride(1),
        *sizes[1:],
        *strides,
        BLOCK_R=BLOCK_R,
        BLOCK_D=BLOCK_D,
    )
    return out
