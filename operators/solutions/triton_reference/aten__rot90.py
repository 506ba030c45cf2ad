"""Triton reference solution for aten::rot90: rotate by k * 90 degrees in the plane of dims.

Wrappers: `rot90`, `rot90_out`. The rotation is expressed as index arithmetic on self: a flip of dimension d
reads from the far end (start offset (size - 1) * stride, stride negated) and a quarter turn swaps the two
dimensions, so one Triton copy writes the row-major result. No flip/transpose op runs in torch.
Three copy kernels, picked from the (collapsed) strides of that rotated view:
- tiles (k = 1, 3 when the source's contiguous dim is not the output's last one): one program per
  BLOCK_P x BLOCK_Q tile, loaded along the source's contiguous dim and stored along the output's; a flip of
  the source's contiguous dim only reverses which output row a tile row goes to, so both sides stay
  ascending, contiguous and vectorizable (Triton moves the tile between the two layouts in shared memory);
- rows (k = 0, 2, or a rotation that keeps the last dim last): rows contiguous on both sides, the row index
  decoded once per program, a flipped row read backwards;
- a generic strided element copy for everything else (odd strides, short rows).
Policy: torch only allocates (torch.empty; `out` is resized with Tensor.resize_).
"""

import torch
import triton
import triton.language as tl

MAX_RANK = 6
BLOCK_SIZE = 1024
TILE_Q = 64  # tile extent along the output's contiguous dim
MIN_ROW = 128  # shorter contiguous rows go through the generic copy
INT32_LIMIT = 2**31


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


@triton.jit
def _tile_kernel(
    src_ptr,
    dst_ptr,
    P,
    Q,
    src_lo,
    dst_start,
    sq,
    dp,
    nb1,
    nb2,
    sa0,
    sa1,
    sa2,
    sd0,
    sd1,
    sd2,
    tiles_q,
    tiles_pq,
    P_FLIP: tl.constexpr,
    EVEN: tl.constexpr,
    BLOCK_P: tl.constexpr,
    BLOCK_Q: tl.constexpr,
):
    """One BLOCK_P x BLOCK_Q tile of dst[b, p, q] = src[b, p, q] where the source walks p with stride +1
    (or -1 when P_FLIP) from src_lo and q with stride sq, and the destination walks q with stride 1 and p
    with stride dp; b (up to 3 batch dims) comes from the program id."""
    pid = tl.program_id(0)
    t = pid % tiles_pq
    bat = pid // tiles_pq
    tp = t // tiles_q
    tq = t % tiles_q
    i2 = bat % nb2
    rest = bat // nb2
    i1 = rest % nb1
    i0 = rest // nb1
    p0 = tp * BLOCK_P  # first source position along p (ascending in memory)
    q0 = tq * BLOCK_Q
    src_base = (
        src_lo + i0.to(tl.int64) * sa0 + i1.to(tl.int64) * sa1 + i2.to(tl.int64) * sa2 + p0 + q0.to(tl.int64) * sq
    )
    dst_base = dst_start + i0.to(tl.int64) * sd0 + i1.to(tl.int64) * sd1 + i2.to(tl.int64) * sd2 + q0
    ps = tl.arange(0, BLOCK_P)
    qs = tl.arange(0, BLOCK_Q)
    src = src_ptr + src_base + (ps[:, None] + qs[None, :] * sq)
    if P_FLIP:  # source position p0 + ps is output row P - 1 - p0 - ps
        dst = dst_ptr + (dst_base + (P - 1 - p0).to(tl.int64) * dp) + (qs[None, :] - ps[:, None] * dp)
    else:
        dst = dst_ptr + (dst_base + p0.to(tl.int64) * dp) + (qs[None, :] + ps[:, None] * dp)
    if EVEN:
        tl.store(dst, tl.load(src))
    else:
        mask = ((p0 + ps) < P)[:, None] & ((q0 + qs) < Q)[None, :]
        tl.store(dst, tl.load(src, mask=mask), mask=mask)


@triton.jit
def _rows_kernel(
    src_ptr,
    dst_ptr,
    L,
    src_start,
    dst_start,
    n1,
    n2,
    n3,
    n4,
    sa0,
    sa1,
    sa2,
    sa3,
    sa4,
    sd0,
    sd1,
    sd2,
    sd3,
    sd4,
    col_blocks,
    L_FLIP: tl.constexpr,
    EVEN: tl.constexpr,
    BLOCK: tl.constexpr,
):
    """dst[r, c] = src[r, c] over rows r (up to 5 dims, decoded once per program) of length L, contiguous
    in both (the source row read backwards when L_FLIP: its stride is -1)."""
    pid = tl.program_id(0)
    cb = pid % col_blocks
    row = pid // col_blocks
    i4 = row % n4
    row = row // n4
    i3 = row % n3
    row = row // n3
    i2 = row % n2
    row = row // n2
    i1 = row % n1
    i0 = row // n1
    src_base = (
        src_start
        + i0.to(tl.int64) * sa0
        + i1.to(tl.int64) * sa1
        + i2.to(tl.int64) * sa2
        + i3.to(tl.int64) * sa3
        + i4.to(tl.int64) * sa4
    )
    dst_base = (
        dst_start
        + i0.to(tl.int64) * sd0
        + i1.to(tl.int64) * sd1
        + i2.to(tl.int64) * sd2
        + i3.to(tl.int64) * sd3
        + i4.to(tl.int64) * sd4
    )
    c0 = cb * BLOCK
    cs = tl.arange(0, BLOCK)
    if L_FLIP:
        src = src_ptr + (src_base - c0) - cs
    else:
        src = src_ptr + (src_base + c0) + cs
    dst = dst_ptr + (dst_base + c0) + cs
    if EVEN:
        tl.store(dst, tl.load(src))
    else:
        mask = (c0 + cs) < L
        tl.store(dst, tl.load(src, mask=mask), mask=mask)


def _is_flat(sizes, strides):
    """True when these (collapsed) strides walk memory in row-major order with no gaps."""
    expected = 1
    for size, stride in zip(reversed(sizes), reversed(strides), strict=True):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def _generic_copy(src, dst, n, sizes, a, b, src_start, dst_start):
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


def _tile_copy(src, dst, dims, p, q, src_start, dst_start):
    """Tiled copy over dims (size, src stride, dst stride) where |src stride of p| = 1 and dst stride of q = 1.
    Returns False when it does not apply (more than 3 other dims, tile offsets beyond int32)."""
    batch = [d for i, d in enumerate(dims) if i not in (p, q)]
    if len(batch) > 3:
        return False
    (P, sp, dp), (Q, sq, _) = dims[p], dims[q]
    es = src.element_size()
    block_p = max(16, min(128, 128 // es))  # 128 bytes of each source line per tile
    block_q = TILE_Q
    if block_q * abs(sq) + block_p >= INT32_LIMIT or block_p * abs(dp) + block_q >= INT32_LIMIT:
        return False
    batch = [(1, 0, 0)] * (3 - len(batch)) + batch
    tiles_p, tiles_q = triton.cdiv(P, block_p), triton.cdiv(Q, block_q)
    n_batch = batch[0][0] * batch[1][0] * batch[2][0]
    src_lo = src_start + (P - 1) * sp if sp < 0 else src_start  # lowest address along p
    _tile_kernel[(tiles_p * tiles_q * n_batch,)](
        src,
        dst,
        P,
        Q,
        src_lo,
        dst_start,
        sq,
        dp,
        batch[1][0],
        batch[2][0],
        *[d[1] for d in batch],
        *[d[2] for d in batch],
        tiles_q,
        tiles_p * tiles_q,
        P_FLIP=sp < 0,
        EVEN=P % block_p == 0 and Q % block_q == 0,
        BLOCK_P=block_p,
        BLOCK_Q=block_q,
        num_warps=4,
    )
    return True


def _rows_copy(src, dst, dims, src_start, dst_start):
    """Copy rows (the last of dims: src stride +-1, dst stride 1); the other dims (at most 5) index rows."""
    L, sl, _ = dims[-1]
    outer = [(1, 0, 0)] * (MAX_RANK - len(dims)) + dims[:-1]
    block = min(2048, triton.next_power_of_2(L))
    col_blocks = triton.cdiv(L, block)
    rows = 1
    for d in outer:
        rows *= d[0]
    _rows_kernel[(rows * col_blocks,)](
        src,
        dst,
        L,
        src_start,
        dst_start,
        *[d[0] for d in outer[1:]],
        *[d[1] for d in outer],
        *[d[2] for d in outer],
        col_blocks,
        L_FLIP=sl < 0,
        EVEN=L % block == 0,
        BLOCK=block,
        num_warps=4 if block <= 1024 else 8,
    )


def _strided_copy(src, dst, shape, src_strides, dst_strides, src_start=0, dst_start=0):
    """Copy the `shape`-shaped strided window of src into that of dst (same dtype for the fast kernels)."""
    n = 1
    for size in shape:
        n *= size
    if n == 0:
        return
    sizes, (a, b) = _collapse(list(shape), list(src_strides), list(dst_strides))
    if src.dtype == dst.dtype:
        dims = [(sizes[i], a[i], b[i]) for i in range(MAX_RANK) if sizes[i] != 1]
        q = next((i for i, d in enumerate(dims) if d[2] == 1), None)
        p = next((i for i, d in enumerate(dims) if abs(d[1]) == 1 and i != q), None)
        if q is not None and p is not None:
            if _tile_copy(src, dst, dims, p, q, src_start, dst_start):
                return
        elif dims and dims[-1][2] == 1 and abs(dims[-1][1]) == 1 and dims[-1][0] >= MIN_ROW:
            _rows_copy(src, dst, dims, src_start, dst_start)
            return
    _generic_copy(src, dst, n, sizes, a, b, src_start, dst_start)


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
