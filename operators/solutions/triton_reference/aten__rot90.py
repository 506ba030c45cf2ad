"""Triton reference solution for aten::rot90: rotate by k * 90 degrees in the plane of dims.

Wrappers: `rot90`, `rot90_out`. The rotation is expressed as index arithmetic on self: a flip of dimension d
reads from the far end (start offset (size - 1) * stride, stride negated) and a quarter turn swaps the two
dimensions, so one strided Triton copy writes the row-major result. No flip/transpose op runs in torch.
Policy: torch only allocates (torch.empty; `out` is resized with Tensor.resize_).
"""

import torch
import triton
import triton.language as tl

MAX_RANK = 6
BLOCK_SIZE = 1024


def _collapse(shape, *stride_lists):
    """Drop size-1 dims and merge neighbours that are contiguous with each other in every operand,
    so most copies run with few index divisions (or none)."""
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    sizes = [shape[d] for d in dims]
    strides = [[s[d] for d in dims] for s in stride_lists]
    i = len(sizes) - 1
    while i > 0:
        if all(st[i - 1] == st[i] * sizes[i] for st in strides):
            sizes[i - 1] *= sizes[i]
            for st in strides:
                st[i - 1] = st[i]
            del sizes[i]
            for st in strides:
                del st[i]
        i -= 1
    if len(sizes) > MAX_RANK:
        raise RuntimeError(f"at most {MAX_RANK} non-mergeable dimensions are supported")
    pad = MAX_RANK - len(sizes)
    return [1] * pad + sizes, [[0] * pad + st for st in strides]


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
def _copy_kernel(
    src_ptr,
    dst_ptr,
    n,
    src_start,
    dst_start,
    s1,
    s2,
    s3,
    s4,
    s5,
    a0,
    a1,
    a2,
    a3,
    a4,
    a5,
    b0,
    b1,
    b2,
    b3,
    b4,
    b5,
    SRC_FLAT: tl.constexpr,
    DST_FLAT: tl.constexpr,
    TO_BOOL: tl.constexpr,
    BLOCK: tl.constexpr,
):
    """dst[dst_start + off_b(i)] = convert(src[src_start + off_a(i)]) for linear indices i < n."""
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if SRC_FLAT:
        src_off = offs
    else:
        src_off = _strided_offset(offs, s1, s2, s3, s4, s5, a0, a1, a2, a3, a4, a5)
    if DST_FLAT:
        dst_off = offs
    else:
        dst_off = _strided_offset(offs, s1, s2, s3, s4, s5, b0, b1, b2, b3, b4, b5)
    x = tl.load(src_ptr + src_start + src_off, mask=mask)
    if TO_BOOL:
        y = x != 0
    else:
        y = x.to(dst_ptr.dtype.element_ty)
    tl.store(dst_ptr + dst_start + dst_off, y, mask=mask)


def _is_flat(sizes, strides):
    """True when these (collapsed) strides walk memory in row-major order with no gaps."""
    expected = 1
    for size, stride in zip(reversed(sizes), reversed(strides), strict=True):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def _strided_copy(src, dst, shape, src_strides, dst_strides, src_start=0, dst_start=0):
    """Copy (with dtype conversion) the `shape`-shaped strided window of src into that of dst."""
    n = 1
    for size in shape:
        n *= size
    if n == 0:
        return
    sizes, (a, b) = _collapse(list(shape), list(src_strides), list(dst_strides))
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    _copy_kernel[grid](
        src,
        dst,
        n,
        src_start,
        dst_start,
        *sizes[1:],
        *a,
        *b,
        SRC_FLAT=_is_flat(sizes, a),
        DST_FLAT=_is_flat(sizes, b),
        TO_BOOL=dst.dtype == torch.bool and src.dtype != torch.bool,
        BLOCK=BLOCK_SIZE,
    )


def _rotated_view(x, k, dims):
    """(shape, strides, start) of rot90(x, k, dims) as a strided window of x's memory."""
    if len(dims) != 2:
        raise RuntimeError("rot90: expected total rotation dims == 2")
    ndim = x.dim()
    a, b = dims[0] % ndim, dims[1] % ndim
    if a == b or ndim < 2:
        raise RuntimeError("rot90: expected distinct rotation dims and at least 2 dimensions")
    shape, strides = list(x.shape), list(x.stride())
    k %= 4
    if k in (1, 3):  # a quarter turn swaps the two dimensions
        shape[a], shape[b] = shape[b], shape[a]
        strides[a], strides[b] = strides[b], strides[a]
    # k=1: out[i][j] = x[j][n-1-i] (flip a after the swap); k=2: flip both; k=3: flip b after the swap
    flipped = {1: (a,), 2: (a, b), 3: (b,)}.get(k, ())
    start = 0
    for d in flipped:
        if shape[d] > 0:
            start += (shape[d] - 1) * strides[d]
        strides[d] = -strides[d]
    return shape, strides, start


def _rot90_into(x, k, dims, out):
    shape, strides, start = _rotated_view(x, k, dims)
    _strided_copy(x, out, shape, strides, list(out.stride()), src_start=start)
    return out


def rot90(self, k=1, dims=(0, 1)):
    shape, _, _ = _rotated_view(self, k, list(dims))
    return _rot90_into(self, k, list(dims), torch.empty(shape, dtype=self.dtype, device=self.device))


def rot90_out(self, k=1, dims=(0, 1), *, out):
    shape, _, _ = _rotated_view(self, k, list(dims))
    if tuple(out.shape) != tuple(shape):
        out.resize_(shape)
    return _rot90_into(self, k, list(dims), out)
