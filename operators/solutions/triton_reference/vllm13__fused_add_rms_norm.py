"""vllm13::fused_add_rms_norm in Triton: residual <- input + residual (rounded to the dtype),
input <- rms_norm(residual) * weight, one program per row."""

import torch
import triton
import triton.language as tl


@triton.jit
def _fused_add_rms_norm_kernel(
    x_ptr, res_ptr, w_ptr, hidden, x_row_stride, res_row_stride, eps, BLOCK: tl.constexpr, SINGLE_PASS: tl.constexpr
):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * x_row_stride
    r_row = res_ptr + row * res_row_stride
    if SINGLE_PASS:
        cols = tl.arange(0, BLOCK)
        mask = cols < hidden
        x = tl.load(x_row + cols, mask=mask, other=0.0)
        r = tl.load(r_row + cols, mask=mask, other=0.0)
        # the sum of two 16-bit floats rounded once from fp32 equals the dtype add
        z = (x.to(tl.float32) + r.to(tl.float32)).to(x.dtype)
        tl.store(r_row + cols, z, mask=mask)
        zf = z.to(tl.float32)
        inv = tl.rsqrt(tl.sum(zf * zf, axis=0) / hidden + eps)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0)
        y = (zf * inv).to(w.dtype).to(tl.float32) * w.to(tl.float32)
        tl.store(x_row + cols, y.to(w.dtype), mask=mask)
    else:
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for start in range(0, hidden, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            mask = cols < hidden
            x = tl.load(x_row + cols, mask=mask, other=0.0)
            r = tl.load(r_row + cols, mask=mask, other=0.0)
            z = (x.to(tl.float32) + r.to(tl.float32)).to(x.dtype)
            tl.store(r_row + cols, z, mask=mask)
            zf = z.to(tl.float32)
            acc += zf * zf
        inv = tl.rsqrt(tl.sum(acc, axis=0) / hidden + eps)
        for start in range(0, hidden, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            mask = cols < hidden
            zf = tl.load(r_row + cols, mask=mask, other=0.0).to(tl.float32)
            w = tl.load(w_ptr + cols, mask=mask, other=0.0)
            y = (zf * inv).to(w.dtype).to(tl.float32) * w.to(tl.float32)
        tl.store(x_row + cols, y.to(w.dtype), mask=mask)


def fused_add_rms_norm(input: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, epsilon: float) -> None:
    hidden = input.shape[-1]
    x = input.view(-1, hidden)
    r = residual.view(-1, hidden)
    rows = x.shape[0]
    if rows == 0:
        return
    block = min(triton.next_power_of_2(hidden), 8192)
    _fused_add_rms_norm_kernel[(rows,)](
        x,
        r,
        weight,
        hidden,
        x.stride(0),
        r.stride(0),
        float(epsilon),
        BLOCK=block,
        SINGLE_PASS=block >= hidden,
        num_warps=8 if block >= 2048 else 4,
    )
