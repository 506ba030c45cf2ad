"""Triton reference solution for aten::rsqrt: 1 / sqrt(x) elementwise.

Wrappers: `rsqrt`. Contiguous operands take a flat kernel (int32 offsets unless the tensor is too large for
them, 16-byte vector loads and stores); other layouts are read by strided indexing (up to 6 dimensions,
broadcasting by zero strides). Half types and fp32 compute in fp32 with the hardware reciprocal square root
(tl.math.rsqrt: rsqrt.approx, about 1 ulp of fp32, the instruction CUDA's rsqrtf and so torch's kernel use):
the IEEE sqrt_rn and division it replaces expand to branchy slow paths per element, which made the kernel
latency bound. rsqrt.approx flushes subnormal inputs to zero, so those are scaled by 2^24 first and the
result by 2^12. rsqrt(-0) = -inf, rsqrt(+0) = +inf, rsqrt(x < 0) = NaN. fp64 computes 1 / sqrt(x) in fp64.
"""

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 1024  # strided kernel, and dense tensors below LARGE: 8 elements (16 bytes of a half type) a thread
LARGE_BLOCK_SIZE = 2048  # dense tensors of LARGE elements or more: two 16-byte vectors a thread in flight
LARGE = 1 << 22
NUM_WARPS = 4
MAX_RANK = 6
_INT32_LIMIT = 2**31 - 1
_TL_DTYPES = (
    (torch.float16, tl.float16),
    (torch.bfloat16, tl.bfloat16),
    (torch.float32, tl.float32),
    (torch.float64, tl.float64),
    (torch.int8, tl.int8),
    (torch.uint8, tl.uint8),
    (torch.int16, tl.int16),
    (torch.int32, tl.int32),
    (torch.int64, tl.int64),
    (torch.bool, tl.int1),
)


def _tl_dtype(dtype):
    for torch_dtype, triton_dtype in _TL_DTYPES:
        if torch_dtype == dtype:
            return triton_dtype
    raise TypeError(f"unsupported dtype {dtype}")


def _compute_dtype(dtype):
    """fp32 math for half types (and fp32); fp64 stays fp64; integers and bool compute as themselves."""
    if dtype == torch.float64:
        return tl.float64
    if dtype.is_floating_point:
        return tl.float32
    return _tl_dtype(dtype)


def _broadcast_shape(*shapes):
    rank = max((len(s) for s in shapes), default=0)
    result = []
    for axis in range(rank):
        size = 1
        for shape in shapes:
            dim = axis - (rank - len(shape))
            if dim >= 0 and shape[dim] != 1:
                if size != 1 and size != shape[dim]:
                    raise RuntimeError(f"shapes {shapes} cannot be broadcast together")
                size = shape[dim]
        result.append(size)
    return tuple(result)


def _padded_sizes(shape):
    if len(shape) > MAX_RANK:
        raise RuntimeError(f"at most {MAX_RANK} dimensions are supported")
    return [1] * (MAX_RANK - len(shape)) + list(shape)


def _padded_strides(t, shape):
    """t's element strides seen through a broadcast to `shape`, left-padded to MAX_RANK (0 = broadcast)."""
    strides = [0] * (MAX_RANK - len(shape)) + [0] * len(shape)
    offset = MAX_RANK - t.dim()
    for dim in range(t.dim()):
        if t.shape[dim] != 1:
            strides[offset + dim] = t.stride(dim)
    return strides


def _is_dense(t, shape):
    """True when t's memory order is the row-major order of `shape` (no index arithmetic needed)."""
    return tuple(t.shape) == tuple(shape) and t.is_contiguous()


@triton.jit
def _strided_offset(offs, s1, s2, s3, s4, s5, t0, t1, t2, t3, t4, t5):
    """Element offset of the row-major linear index `offs` for sizes (., s1..s5) and strides t0..t5."""
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
def _rsqrt_value(x, COMPUTE: tl.constexpr):
    if COMPUTE == tl.float64:
        y = 1.0 / tl.sqrt(x)  # fp64 sqrt is IEEE (sqrt.rn.f64); tl.sqrt_rn takes fp32 only
    else:
        # rsqrt.approx.ftz: subnormal x would read as +-0 (giving +-inf); 2^24 x is normal, rsqrt(2^24 x) 2^12 = rsqrt(x)
        tiny = tl.abs(x) < 1.1754943508222875e-38
        y = tl.math.rsqrt(tl.where(tiny, x * 16777216.0, x))
        y = tl.where(tiny, y * 4096.0, y)
    return y


@triton.jit
def _rsqrt_dense_kernel(x_ptr, out_ptr, n, COMPUTE: tl.constexpr, INDEX64: tl.constexpr, BLOCK: tl.constexpr):
    if INDEX64:
        offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(COMPUTE)
    tl.store(out_ptr + offs, _rsqrt_value(x, COMPUTE).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _rsqrt_kernel(
    x_ptr,
    out_ptr,
    n,
    s1,
    s2,
    s3,
    s4,
    s5,
    x0,
    x1,
    x2,
    x3,
    x4,
    x5,
    o0,
    o1,
    o2,
    o3,
    o4,
    o5,
    X_DENSE: tl.constexpr,
    O_DENSE: tl.constexpr,
    COMPUTE: tl.constexpr,
    BLOCK: tl.constexpr,
):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if X_DENSE:
        x_off = offs
    else:
        x_off = _strided_offset(offs, s1, s2, s3, s4, s5, x0, x1, x2, x3, x4, x5)
    if O_DENSE:
        o_off = offs
    else:
        o_off = _strided_offset(offs, s1, s2, s3, s4, s5, o0, o1, o2, o3, o4, o5)
    x = tl.load(x_ptr + x_off, mask=mask).to(COMPUTE)
    tl.store(out_ptr + o_off, _rsqrt_value(x, COMPUTE).to(out_ptr.dtype.element_ty), mask=mask)


def _launch(x, out):
    shape = tuple(x.shape)
    if tuple(out.shape) != shape:
        raise RuntimeError(f"out has shape {tuple(out.shape)}, expected {shape}")
    n = x.numel()
    if n == 0:
        return out
    compute = _compute_dtype(x.dtype)
    if _is_dense(x, shape) and _is_dense(out, shape):
        block = LARGE_BLOCK_SIZE if n >= LARGE else BLOCK_SIZE
        _rsqrt_dense_kernel[(triton.cdiv(n, block),)](
            x, out, n, COMPUTE=compute, INDEX64=n > _INT32_LIMIT - block, BLOCK=block, num_warps=NUM_WARPS
        )
        return out
    sizes = _padded_sizes(shape)
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    _rsqrt_kernel[grid](
        x,
        out,
        n,
        *sizes[1:],
        *_padded_strides(x, shape),
        *_padded_strides(out, shape),
        X_DENSE=_is_dense(x, shape),
        O_DENSE=_is_dense(out, shape),
        COMPUTE=compute,
        BLOCK=BLOCK_SIZE,
        num_warps=NUM_WARPS,
    )
    return out


def rsqrt(self):
    return _launch(self, torch.empty(self.shape, dtype=self.dtype, device=self.device))
