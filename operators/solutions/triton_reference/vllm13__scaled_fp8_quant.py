"""vllm13::scaled_fp8_quant in Triton (float8_e4m3fn, max 448): static per-tensor, dynamic per-tensor
(row maxima, then one reduction program) or dynamic per-token scales; q = clamp(x * (1/scale)).

The fp32 -> e4m3fn rounding (to nearest even, subnormals included) is done on the bit pattern with integer
arithmetic and the bytes are stored through a uint8 view: exact on every backend, including the CPU
interpreter whose own fp8 cast mis-rounds near binade boundaries."""

import torch
import triton
import triton.language as tl

FP8_MAX = 448.0


@triton.jit
def _round_half_even(x):
    f = tl.floor(x)
    diff = x - f
    f_is_even = (f - 2.0 * tl.floor(f * 0.5)) == 0.0
    return tl.where(diff > 0.5, f + 1.0, tl.where(diff < 0.5, f, tl.where(f_is_even, f, f + 1.0)))


@triton.jit
def _e4m3fn_bits(x):
    """Byte of float8_e4m3fn(x) for finite |x| <= 448."""
    a = tl.abs(x)
    bits = a.to(tl.int32, bitcast=True)
    exponent = ((bits >> 23) & 0xFF) - 127
    mantissa = bits & 0x7FFFFF
    keep = mantissa >> 20
    rest = mantissa & 0xFFFFF
    round_up = (rest > 0x80000) | ((rest == 0x80000) & ((keep & 1) == 1))
    normal = ((exponent + 7) << 3) + keep + round_up.to(tl.int32)
    subnormal = _round_half_even(a * 512.0).to(tl.int32)  # multiples of 2^-9, 8 = smallest normal
    magnitude = tl.where(a < 0.015625, subnormal, normal)
    sign = tl.where(x < 0, 0x80, 0)
    return (magnitude | sign).to(tl.uint8)


@triton.jit
def _row_amax_kernel(x_ptr, amax_ptr, cols, x_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, cols, BLOCK):
        c = start + tl.arange(0, BLOCK)
        acc = tl.maximum(acc, tl.abs(tl.load(x_ptr + row * x_stride + c, mask=c < cols, other=0.0).to(tl.float32)))
    tl.store(amax_ptr + row, tl.max(acc, axis=0))


@triton.jit
def _tensor_scale_kernel(amax_ptr, scale_ptr, rows, FP8_MAX: tl.constexpr, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, rows, BLOCK):
        r = start + tl.arange(0, BLOCK)
        acc = tl.maximum(acc, tl.load(amax_ptr + r, mask=r < rows, other=0.0))
    tl.store(scale_ptr, tl.max(acc, axis=0) / FP8_MAX)


@triton.jit
def _quant_kernel(
    x_ptr,
    q_ptr,
    scale_ptr,
    amax_ptr,
    ub_ptr,
    cols,
    x_stride,
    q_stride,
    PER_TOKEN: tl.constexpr,
    HAS_UB: tl.constexpr,
    FP8_MAX: tl.constexpr,
    BLOCK: tl.constexpr,
):
    row = tl.program_id(0).to(tl.int64)
    if PER_TOKEN:
        amax = tl.load(amax_ptr + row)
        if HAS_UB:
            amax = tl.minimum(amax, tl.load(ub_ptr).to(tl.float32))
        scale = tl.maximum(amax / FP8_MAX, 1.0 / (FP8_MAX * 512.0))
        tl.store(scale_ptr + row, scale)
    else:
        scale = tl.load(scale_ptr).to(tl.float32)
    inverse = 1.0 / scale
    for start in range(0, cols, BLOCK):
        c = start + tl.arange(0, BLOCK)
        mask = c < cols
        x = tl.load(x_ptr + row * x_stride + c, mask=mask, other=0.0).to(tl.float32)
        q = tl.minimum(tl.maximum(x * inverse, -FP8_MAX), FP8_MAX)
        tl.store(q_ptr + row * q_stride + c, _e4m3fn_bits(q), mask=mask)


def scaled_fp8_quant(
    input: torch.Tensor,
    scale: torch.Tensor | None = None,
    num_token_padding: int | None = None,
    scale_ub: torch.Tensor | None = None,
    use_per_token_if_dynamic: bool = False,
    output: torch.Tensor | None = None,
):
    rows, cols = input.shape
    out_rows = max(num_token_padding or 0, rows)
    if output is None:
        output = torch.empty((out_rows, cols), dtype=torch.float8_e4m3fn, device=input.device)
    block = min(triton.next_power_of_2(cols), 4096)
    amax = torch.empty(max(rows, 1), dtype=torch.float32, device=input.device)
    if scale is None:
        if rows:
            _row_amax_kernel[(rows,)](input, amax, cols, input.stride(0), BLOCK=block)
        if use_per_token_if_dynamic:
            scale = torch.empty((out_rows, 1), dtype=torch.float32, device=input.device)
        else:
            scale = torch.empty(1, dtype=torch.float32, device=input.device)
            _tensor_scale_kernel[(1,)](amax, scale, rows, FP8_MAX=FP8_MAX, BLOCK=1024)
        per_token = bool(use_per_token_if_dynamic)
    else:
        per_token = False
    if rows:
        upper = scale_ub if scale_ub is not None else amax
        _quant_kernel[(rows,)](
            input,
            output.view(torch.uint8),
            scale,
            amax,
            upper,
            cols,
            input.stride(0),
            output.stride(0),
            PER_TOKEN=per_token,
            HAS_UB=per_token and scale_ub is not None,
            FP8_MAX=FP8_MAX,
            BLOCK=block,
        )
    return output, scale
