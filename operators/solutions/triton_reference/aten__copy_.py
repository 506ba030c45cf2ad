"""Triton reference solution for aten::copy_: write src (broadcast, converted) into self in place.

Wrappers: `copy_`. src is read through its strides with zero strides for broadcast dimensions; self may be
any strided view and only its elements are written. Conversion in the kernel (round to nearest even for
float narrowing on GPUs, truncation for float -> int, `!= 0` for -> bool). Overlapping src/self is not
supported. Policy: no torch op touches data.
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


def _broadcast_strides(src, shape):
    """src's strides seen through a broadcast to `shape` (0 where src has size 1 or no dimension)."""
    if src.dim() > len(shape):
        raise RuntimeError(f"copy_: source of shape {tuple(src.shape)} cannot be broadcast to {tuple(shape)}")
    lead = len(shape) - src.dim()
    strides = [0] * len(shape)
    for d in range(src.dim()):
        if src.shape[d] == shape[lead + d]:
            strides[lead + d] = src.stride(d) if src.shape[d] != 1 else 0
        elif src.shape[d] != 1:
            raise RuntimeError(f"copy_: source of shape {tuple(src.shape)} cannot be broadcast to {tuple(shape)}")
    return strides


def copy_(self, src, non_blocking=False):
    if src.device != self.device:
        raise RuntimeError("copy_: cross-device copies are not supported by this kernel")
    shape = list(self.shape)
    _strided_copy(src, self, shape, _broadcast_strides(src, shape), self.stride())
    return self
