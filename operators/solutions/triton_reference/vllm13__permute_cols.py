"""vllm13::permute_cols in Triton: out[:, j] = a[:, perm[j]] (a 2-D gather).

A random gather reads 2 bytes out of every 32-byte sector it touches, so a row is only read from memory once if
everything that gathers from it runs close together. Each program therefore owns one row (or, when there are
too few rows to fill the GPU, one column range of a row) and walks its columns in BLOCK_C chunks: the row's
sectors are fetched once and the later chunks hit them in L1/L2, and only the few rows of the running programs
need to stay cached. Writes are contiguous.
"""

import torch
import triton
import triton.language as tl

BLOCK_C = 4096
# 16 warps per program: fewer resident programs (rows) per SM, so their rows fit in L1 together
NUM_WARPS = 16
# split rows into column ranges until there are about this many programs (eight per SM on 132 SMs)
TARGET_PROGRAMS = 1024


@triton.jit
def _permute_cols_kernel(
    a_ptr,
    perm_ptr,
    out_ptr,
    cols,
    cols_per_split,
    a_row_stride,
    a_col_stride,
    out_row_stride,
    BLOCK_C: tl.constexpr,
):
    row = tl.program_id(0).to(tl.int64)
    split = tl.program_id(1)
    a_row = a_ptr + row * a_row_stride
    out_row = out_ptr + row * out_row_stride
    c_start = split * cols_per_split
    c_end = tl.minimum(c_start + cols_per_split, cols)
    for c0 in range(c_start, c_end, BLOCK_C):
        c = c0 + tl.arange(0, BLOCK_C)
        mask = c < c_end
        src = tl.load(perm_ptr + c, mask=mask, other=0).to(tl.int64)
        v = tl.load(a_row + src * a_col_stride, mask=mask, other=0.0)
        tl.store(out_row + c, v, mask=mask)


def permute_cols(a: torch.Tensor, perm: torch.Tensor) -> torch.Tensor:
    rows, cols = a.shape
    out = torch.empty((rows, cols), dtype=a.dtype, device=a.device)
    if rows == 0 or cols == 0:
        return out
    chunks = triton.cdiv(cols, BLOCK_C)
    splits = min(chunks, triton.cdiv(TARGET_PROGRAMS, rows))
    cols_per_split = triton.cdiv(chunks, splits) * BLOCK_C
    # rows on axis 0 (up to 2**31 - 1 programs there); with splits there are at most ~2 * TARGET_PROGRAMS programs,
    # all resident at once, so a row's column ranges still run together
    grid = (rows, triton.cdiv(cols, cols_per_split))
    _permute_cols_kernel[grid](
        a,
        perm,
        out,
        cols,
        cols_per_split,
        a.stride(0),
        a.stride(1),
        out.stride(0),
        BLOCK_C=BLOCK_C,
        num_warps=NUM_WARPS,
    )
    return out
