"""vllm13::scaled_int8_quant in Triton: static (given scale, optional azp) or dynamic per-row
(symmetric: absmax/127; asymmetric: (max-min)/255 with an int32 zero point) int8 quantisation, one program
per row, round half to even."""

import torch
import triton
import triton.language as tl


@triton.jit
def _round_half_even(x):
    f = tl.floor(x)
    diff = x - f
    f_is_even = (f - 2.0 * tl.floor(f * 0.5)) == 0.0
    return tl.where(diff > 0.5, f + 1.0, tl.where(diff < 0.5, f, tl.where(f_is_even, f, f + 1.0)))


@triton.jit
def _int8_quant_kernel(
    x_ptr,
    q_ptr,
    scale_ptr,
    azp_ptr,
    cols,
    x_stride,
    q_stride,
    STATIC: tl.constexpr,
    HAS_AZP: tl.constexpr,
    SYMMETRIC: tl.constexpr,
    BLOCK: tl.constexpr,
):
    row = tl.program_id(0).to(tl.int64)
    c = tl.arange(0, BLOCK)
    mask = c < cols
    x = tl.load(x_ptr + row * x_stride + c, mask=mask, other=0.0).to(tl.float32)
    if STATIC:
        scale = tl.load(scale_ptr).to(tl.float32)
        q = _round_half_even(x / scale)
        if HAS_AZP:
            q = q + tl.load(azp_ptr).to(tl.float32)
    elif SYMMETRIC:
        amax = tl.max(tl.where(mask, tl.abs(x), 0.0), axis=0)
        tl.store(scale_ptr + row, amax / 127.0)
        q = _round_half_even(x * (127.0 / amax))
    else:
        hi = tl.max(tl.where(mask, x, float("-inf")), axis=0)
        lo = tl.min(tl.where(mask, x, float("inf")), axis=0)
        scale = (hi - lo) / 255.0
        azp = _round_half_even(-128.0 - lo / scale)
        tl.store(scale_ptr + row, scale)
        tl.store(azp_ptr + row, azp.to(tl.int32))
        q = _round_half_even(x / scale) + azp
    q = tl.minimum(tl.maximum(q, -128.0), 127.0)
    tl.store(q_ptr + row * q_stride + c, q.to(tl.int8), mask=mask)


def scaled_int8_quant(
    input: torch.Tensor, scale: torch.Tensor | None = None, azp: torch.Tensor | None = None, symmetric: bool = True
):
    cols = input.shape[-1]
    x = input.reshape(-1, cols)
    rows = x.shape[0]
    q = torch.empty(input.shape, dtype=torch.int8, device=input.device)
    q2 = q.view(-1, cols)
    block = triton.next_power_of_2(cols)
    if scale is not None:
        if rows:
            _int8_quant_kernel[(rows,)](
                x,
                q2,
                scale,
                azp if azp is not None else scale,
                cols,
                x.stride(0),
                q2.stride(0),
                STATIC=True,
                HAS_AZP=azp is not None,
                SYMMETRIC=True,
                BLOCK=block,
            )
        return q, scale, azp
    scales = torch.empty((rows, 1), dtype=torch.float32, device=input.device)
    zero_points = None if symmetric else torch.empty((rows, 1), dtype=torch.int32, device=input.device)
    if rows:
        _int8_quant_kernel[(rows,)](
            x,
            q2,
            scales,
            zero_points if zero_points is not None else scales,
            cols,
            x.stride(0),
            q2.stride(0),
            STATIC=False,
            HAS_AZP=not symmetric,
            SYMMETRIC=bool(symmetric),
            BLOCK=block,
        )
    return q, scales, zero_points
