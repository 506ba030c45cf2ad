"""vllm13::permute_cols in Triton: out[:, j] = a[:, perm[j]] (a 2-D gather)."""

import torch
import triton
import triton.language as tl


@triton.jit
def _permute_cols_kernel(
    a_ptr, perm_ptr, out_ptr, rows, cols, a_row_stride, out_row_stride, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr
):
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    c = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    cmask = c < cols
    src = tl.load(perm_ptr + c, mask=cmask, other=0).to(tl.int64)
    mask = (r[:, None] < rows) & cmask[None, :]
    r64 = r.to(tl.int64)
    v = tl.load(a_ptr + r64[:, None] * a_row_stride + src[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + r64[:, None] * out_row_stride + c[None, :], v, mask=mask)


def permute_cols(a: torch.Tensor, perm: torch.Tensor) -> torch.Tensor:
    rows, cols = a.shape
    out = torch.empty((rows, cols), dtype=a.dtype, device=a.device)
    if rows == 0 or cols == 0:
        return out
    block_r, block_c = 16, 128
    grid = (triton.cdiv(rows, block_r), triton.cdiv(cols, block_c))
    _permute_cols_kernel[grid](a, perm, out, rows, cols, a.stride(0), out.stride(0), BLOCK_R=block_r, BLOCK_C=block_c)
    return out
