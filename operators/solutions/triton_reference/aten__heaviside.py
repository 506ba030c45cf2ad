"""Triton reference solution for aten::heaviside: 0 for self < 0, values for self == 0, 1 for self > 0 (NaN gives 0, as in ATen)

Wrappers: `heaviside`, `heaviside_out`. Inputs of any layout are read by strided indexing (up to 6 dimensions,
broadcasting by zero strides); contiguous operands take a flat fast path. Half types compute in fp32.
"""

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 1024
MAX_RANK = 6
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


def _operand(value, device):
    """A tensor operand on `device`, or a Python number. 0-d tensors living elsewhere (the wrapped
    numbers PyTorch makes of Python scalars, which stay on the cpu) are read as numbers."""
    if isinstance(value, torch.Tensor) and value.dim() == 0 and value.device != device:
        return value.item()
    return value


def _device_of(*values):
    tensors = [v for v in values if isinstance(v, torch.Tensor)]
    for t in tensors:
        if t.dim() > 0:
            return t.device
    return tensors[0].device


def _scalar_arg(value, dtype):
    """A Python number as the kernel argument type of `dtype`'s compute type."""
    if dtype.is_floating_point:
        return float(value)
    if dtype == torch.bool:
        return int(bool(value))
    return int(value)


@triton.jit
def _heaviside_kernel(
    a,
    b,
    out_ptr,
    n,
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
    o0,
    o1,
    o2,
    o3,
    o4,
    o5,
    A_TENSOR: tl.constexpr,
    B_TENSOR: tl.constexpr,
    A_DENSE: tl.constexpr,
    B_DENSE: tl.constexpr,
    O_DENSE: tl.constexpr,
    COMPUTE: tl.constexpr,
    BLOCK: tl.constexpr,
):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if A_TENSOR:
        if A_DENSE:
            a_off = offs
        else:
            a_off = _strided_offset(offs, s1, s2, s3, s4, s5, a0, a1, a2, a3, a4, a5)
        x = tl.load(a + a_off, mask=mask).to(COMPUTE)
    else:
        x = tl.full([BLOCK], a, COMPUTE)
    if B_TENSOR:
        if B_DENSE:
            b_off = offs
        else:
            b_off = _strided_offset(offs, s1, s2, s3, s4, s5, b0, b1, b2, b3, b4, b5)
        z = tl.load(b + b_off, mask=mask).to(COMPUTE)
    else:
        z = tl.full([BLOCK], b, COMPUTE)
    if O_DENSE:
        o_off = offs
    else:
        o_off = _strided_offset(offs, s1, s2, s3, s4, s5, o0, o1, o2, o3, o4, o5)
    y = tl.where(x == 0, z, tl.where(x > 0, 1.0, 0.0))
    tl.store(out_ptr + o_off, y.to(out_ptr.dtype.element_ty), mask=mask)


def _launch(a, b, out, compute_dtype):
    """out = f(a, b) over out's shape; a and b are tensors broadcastable to it, or Python numbers."""
    shape = tuple(out.shape)
    n = out.numel()
    if n == 0:
        return out
    a_tensor, b_tensor = isinstance(a, torch.Tensor), isinstance(b, torch.Tensor)
    a_strides = _padded_strides(a, shape) if a_tensor else [0] * MAX_RANK
    b_strides = _padded_strides(b, shape) if b_tensor else [0] * MAX_RANK
    a_arg = a if a_tensor else _scalar_arg(a, compute_dtype)
    b_arg = b if b_tensor else _scalar_arg(b, compute_dtype)
    sizes = _padded_sizes(shape)
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    _heaviside_kernel[grid](
        a_arg,
        b_arg,
        out,
        n,
        *sizes[1:],
        *a_strides,
        *b_strides,
        *_padded_strides(out, shape),
        A_TENSOR=a_tensor,
        B_TENSOR=b_tensor,
        A_DENSE=a_tensor and _is_dense(a, shape),
        B_DENSE=b_tensor and _is_dense(b, shape),
        O_DENSE=_is_dense(out, shape),
        COMPUTE=_compute_dtype(compute_dtype),
        BLOCK=BLOCK_SIZE,
    )
    return out


def _shape_of(value):
    return tuple(value.shape) if isinstance(value, torch.Tensor) else ()


def _binary(self, other, out=None):
    device = _device_of(self, other)
    a, b = _operand(self, device), _operand(other, device)
    dtype = torch.result_type(self, other)
    if out is None:
        out = torch.empty(_broadcast_shape(_shape_of(a), _shape_of(b)), dtype=dtype, device=device)
    return _launch(a, b, out, dtype)


def heaviside(self, values):
    return _binary(self, values)


def heaviside_out(self, values, *, out):
    return _binary(self, values, out)
