# honest (spec CAT_ONE): the project's Triton reference aten::cat (a "layout" operator), unchanged
"""Triton reference solution for aten::cat: concatenate tensors along dim into a new row-major tensor.

Wrappers: `cat`. Each member is copied by one strided Triton kernel launch into its slab of the output,
addressed by an element offset (no views of the output are made). The result dtype is the promotion of the
members' dtypes (conversion in the kernel); legacy 1-D empty tensors of shape (0,) are skipped as in PyTorch.
Policy: torch only allocates (torch.empty); the promoted dtype is computed in Python.
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


def _promoted_dtype(dtypes):
    """PyTorch's type promotion for tensors of equal rank category: the widest kind (bool < integer <
    floating), then the widest dtype of that kind; fp16 with bf16 gives fp32, uint8 with a signed 8-bit int16.
    (Computed in Python: torch.promote_types is an aten call.)"""
    dtypes = list(dtypes)
    if all(d == dtypes[0] for d in dtypes):
        return dtypes[0]

    def kind(d):
        return 0 if d == torch.bool else 2 if d.is_floating_point else 1

    top = max(kind(d) for d in dtypes)
    pool = {d for d in dtypes if kind(d) == top}
    if pool == {torch.float16, torch.bfloat16}:
        return torch.float32
    if pool == {torch.uint8, torch.int8}:
        return torch.int16
    widest = max(d.itemsize for d in pool)
    candidates = [d for d in pool if d.itemsize == widest]
    if len(candidates) > 1:  # fp16/bf16 mixed with nothing wider
        return torch.float32
    return candidates[0]


def cat(tensors, dim=0):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("cat: expected a non-empty list of tensors")
    dtype = _promoted_dtype(t.dtype for t in tensors)
    members = [t for t in tensors if not (t.dim() == 1 and t.shape[0] == 0)]
    if not members:
        return torch.empty((0,), dtype=dtype, device=tensors[0].device)
    ref = members[0]
    ndim = ref.dim()
    if ndim == 0:
        raise RuntimeError("cat: zero-dimensional tensor cannot be concatenated")
    dim = dim % ndim
    for t in members:
        if t.dim() != ndim or any(t.shape[d] != ref.shape[d] for d in range(ndim) if d != dim):
            raise RuntimeError("cat: sizes of tensors must match except in the concatenating dimension")
    shape = list(ref.shape)
    shape[dim] = sum(t.shape[dim] for t in members)
    out = torch.empty(shape, dtype=dtype, device=ref.device)
    out_strides = list(out.stride())
    start = 0
    for t in members:
        _strided_copy(t, out, list(t.shape), t.stride(), out_strides, dst_start=start * out_strides[dim])
        start += t.shape[dim]
    return out
