"""Triton reference solution for aten::gather: out[..i_dim..] = self[..index[...]..] along dim.

Wrappers: `gather`. One Triton kernel walks the (row-major) output, which has index's shape: it reads the index
through its strides and self through its strides with the gathered dimension replaced by the loaded index.
Any layout of self/index, up to 6 dimensions. Indices are not bounds-checked on the device.
Policy: torch only allocates (torch.empty).
"""

import torch
import triton
import triton.language as tl

MAX_RANK = 6
BLOCK_SIZE = 1024


def _pad(values, fill):
    if len(values) > MAX_RANK:
        raise RuntimeError(f"at most {MAX_RANK} dimensions are supported")
    return [fill] * (MAX_RANK - len(values)) + list(values)


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
def _take_kernel(
    src_ptr,
    index_ptr,
    out_ptr,
    n,
    dim_stride,
    s1,
    s2,
    s3,
    s4,
    s5,
    i0,
    i1,
    i2,
    i3,
    i4,
    i5,
    a0,
    a1,
    a2,
    a3,
    a4,
    a5,
    BLOCK: tl.constexpr,
):
    """For each row-major position p of the output (sizes s): k = index[off_i(p)] and
    out[p] = src[off_a(p) + k * dim_stride] (the indexed dimension has stride 0 in `a`)."""
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    k = tl.load(index_ptr + _strided_offset(offs, s1, s2, s3, s4, s5, i0, i1, i2, i3, i4, i5), mask=mask, other=0)
    src_off = _strided_offset(offs, s1, s2, s3, s4, s5, a0, a1, a2, a3, a4, a5) + k.to(tl.int64) * dim_stride
    tl.store(out_ptr + offs, tl.load(src_ptr + src_off, mask=mask), mask=mask)


def _take(src, index, out, sizes, index_strides, src_strides, dim_stride):
    """out (row-major, `sizes`) gathers src along one dimension; see _take_kernel."""
    n = 1
    for size in sizes:
        n *= size
    if n == 0:
        return out
    padded = _pad(sizes, 1)
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    _take_kernel[grid](
        src, index, out, n, dim_stride, *padded[1:], *_pad(index_strides, 0), *_pad(src_strides, 0), BLOCK=BLOCK_SIZE
    )
    return out


def gather(self, dim, index, *, sparse_grad=False):
    ndim = max(self.dim(), 1)
    dim = dim % ndim
    out = torch.empty(index.shape, dtype=self.dtype, device=self.device)
    if self.dim() == 0:
        src_strides, dim_stride = [0] * index.dim(), 0
    else:
        src_strides = [self.stride(d) if d != dim else 0 for d in range(self.dim())]
        dim_stride = self.stride(dim)
    return _take(self, index, out, list(index.shape), list(index.stride()), src_strides, dim_stride)
