"""Triton reference solution for aten::_to_copy: a copy converted to another dtype.

Wrappers: `_to_copy`. Conversions happen in the kernel (`.to(dtype)`: round to nearest even for float
narrowing on GPUs, truncation toward zero for float -> int, `!= 0` for -> bool). Output strides follow
memory_format like PyTorch (preserve_format: self's strides when dense, else dense in self's stride order).
The kernel walks the elements in the output's memory order, so same-order copies (contiguous, or a transposed
view kept transposed by preserve_format) collapse to one flat run and both sides are read/written coalesced.
Only same-device, strided-layout copies are supported. Policy: torch only allocates.
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
    # walk the index space in dst's memory order (any dim order visits the same element pairs): a transposed
    # input copied with preserve_format then collapses to one flat, coalesced run on both sides instead of
    # touching one element per 32-byte sector
    order = sorted(range(len(shape)), key=lambda d: dst_strides[d], reverse=True)
    sizes, (a, b) = _collapse(
        [shape[d] for d in order], [src_strides[d] for d in order], [dst_strides[d] for d in order]
    )
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


def _contiguous_strides(shape):
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * max(shape[d + 1], 1)
    return strides


def _is_dense(shape, strides):
    """True when the strides cover a gap-free, non-overlapping block (any dimension order)."""
    dims = sorted((d for d in range(len(shape)) if shape[d] != 1), key=lambda d: strides[d])
    expected = 1
    for d in dims:
        if strides[d] != expected:
            return False
        expected *= shape[d]
    return True


def _preserved_strides(shape, strides):
    """The strides of empty_like(t, memory_format=preserve_format): t's own when t is dense, else
    dense strides in t's stride order (PyTorch's infer_dense_strides: stride-0 dims keep their place)."""
    if _is_dense(shape, strides):
        return list(strides)
    ndim = len(shape)
    perm = list(range(ndim - 1, -1, -1))  # innermost first

    def should_swap(d0, d1):
        if strides[d0] == 0 or strides[d1] == 0:
            return 0
        if strides[d0] != strides[d1]:
            return -1 if strides[d0] < strides[d1] else 1
        return 1 if shape[d0] > shape[d1] else 0

    for i in range(1, ndim):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            order = should_swap(perm[dim0], perm[dim1])
            if order > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif order < 0:
                break
    result = [0] * ndim
    step = 1
    for d in perm:
        result[d] = step
        step *= max(shape[d], 1)
    return result


def _to_copy(self, *, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False, memory_format=None):
    if layout is not None and layout != torch.strided:
        raise RuntimeError("_to_copy: only the strided layout is supported")
    if device is not None and torch.device(device) != self.device:
        raise RuntimeError("_to_copy: cross-device copies are not supported by this kernel")
    dtype = self.dtype if dtype is None else dtype
    shape = list(self.shape)
    if memory_format is None or memory_format == torch.preserve_format:
        strides = _preserved_strides(shape, list(self.stride()))
    elif memory_format == torch.contiguous_format:
        strides = _contiguous_strides(shape)
    else:
        raise RuntimeError(f"_to_copy: memory_format {memory_format} is not supported")
    out = torch.empty_strided(shape, strides, dtype=dtype, device=self.device)
    _strided_copy(self, out, shape, self.stride(), out.stride())
    return out
