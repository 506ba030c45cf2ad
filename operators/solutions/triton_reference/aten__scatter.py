"""Triton reference solution for aten::scatter: out = self.clone(); out[..index[...]..] = src[...] along dim.

Wrappers: `scatter_src`, `scatter_value`, `scatter_reduce` (reduce='add' | 'multiply'). A strided Triton copy
makes the row-major clone of self; a second kernel walks index's shape, reads index and src through their
strides and writes out[pos with the dim coordinate replaced by the index]. reduce='add' uses atomic adds for
fp16/fp32/fp64/int32/int64 (duplicate indices sum correctly); other dtypes and 'multiply' read-modify-write,
which is exact when the indices along dim are distinct (the operator leaves colliding plain writes unspecified).
Policy: torch only allocates (torch.empty).
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


_ATOMIC_ADD_DTYPES = (torch.float16, torch.float32, torch.float64, torch.int32, torch.int64)


@triton.jit
def _scatter_kernel(
    out_ptr,
    index_ptr,
    src_ptr,
    value,
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
    o0,
    o1,
    o2,
    o3,
    o4,
    o5,
    FROM_VALUE: tl.constexpr,
    MODE: tl.constexpr,
    BLOCK: tl.constexpr,
):
    """MODE 0: store, 1: atomic add, 2: read-add-write, 3: read-multiply-write."""
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    k = tl.load(index_ptr + _strided_offset(offs, s1, s2, s3, s4, s5, i0, i1, i2, i3, i4, i5), mask=mask, other=0)
    dst = out_ptr + _strided_offset(offs, s1, s2, s3, s4, s5, o0, o1, o2, o3, o4, o5) + k.to(tl.int64) * dim_stride
    if FROM_VALUE:
        x = tl.zeros([BLOCK], dtype=out_ptr.dtype.element_ty) + value
    else:
        x = tl.load(src_ptr + _strided_offset(offs, s1, s2, s3, s4, s5, a0, a1, a2, a3, a4, a5), mask=mask)
        x = x.to(out_ptr.dtype.element_ty)
    if MODE == 0:
        tl.store(dst, x, mask=mask)
    elif MODE == 1:
        tl.atomic_add(dst, x, mask=mask)
    elif MODE == 2:  # half types: one rounding of the fp32 sum
        old = tl.load(dst, mask=mask).to(tl.float32)
        tl.store(dst, (old + x.to(tl.float32)).to(out_ptr.dtype.element_ty), mask=mask)
    else:
        old = tl.load(dst, mask=mask)
        if out_ptr.dtype.element_ty.is_floating():
            tl.store(dst, (old.to(tl.float32) * x.to(tl.float32)).to(out_ptr.dtype.element_ty), mask=mask)
        else:
            tl.store(dst, old * x, mask=mask)


def _scatter(self, dim, index, src, value, reduce):
    out = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    _strided_copy(self, out, list(self.shape), self.stride(), out.stride())
    n = index.numel()
    if n == 0:
        return out
    ndim = max(self.dim(), 1)
    dim = dim % ndim
    if index.dim() > MAX_RANK:
        raise RuntimeError(f"scatter: at most {MAX_RANK} dimensions are supported")
    pad = MAX_RANK - index.dim()
    sizes = [1] * pad + list(index.shape)
    index_strides = [0] * pad + list(index.stride())
    out_strides = [0] * pad + [out.stride(d) if d != dim else 0 for d in range(out.dim())][: index.dim()]
    dim_stride = out.stride(dim) if out.dim() else 0
    src_strides = [0] * pad + list(src.stride()[: index.dim()]) if src is not None else [0] * MAX_RANK
    if reduce in (None, ""):
        mode = 0
    elif reduce == "add":
        mode = 1 if self.dtype in _ATOMIC_ADD_DTYPES else 2
    elif reduce == "multiply":
        mode = 3
    else:
        raise RuntimeError(f"scatter: reduce argument must be 'add' or 'multiply', got {reduce!r}")
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    _scatter_kernel[grid](
        out,
        index,
        src if src is not None else out,
        value if src is None else 0,
        n,
        dim_stride,
        *sizes[1:],
        *index_strides,
        *src_strides,
        *out_strides,
        FROM_VALUE=src is None,
        MODE=mode,
        BLOCK=BLOCK_SIZE,
    )
    return out


def scatter_src(self, dim, index, src):
    return _scatter(self, dim, index, src, None, None)


def scatter_value(self, dim, index, value):
    return _scatter(self, dim, index, None, value, None)


def scatter_reduce(self, dim, index, src, *, reduce):
    return _scatter(self, dim, index, src, None, reduce)
