"""vllm13::rms_norm in Triton: one program per row, fp32 variance, normalised value rounded to the
input dtype before the weight multiply (vLLM's rounding point)."""

import torch
import triton
import triton.language as tl


@triton.jit
def _rms_norm_kernel(
    out_ptr, x_ptr, w_ptr, hidden, x_row_stride, out_row_stride, eps, BLOCK: tl.constexpr, SINGLE_PASS: tl.constexpr
):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * x_row_stride
    out_row = out_ptr + row * out_row_stride
    if SINGLE_PASS:
        cols = tl.arange(0, BLOCK)
        mask = cols < hidden
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        inv = tl.rsqrt(tl.sum(x * x, axis=0) / hidden + eps)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0)
        # the product of two 16-bit floats is exact in fp32, so rounding it once matches a dtype multiply
        y = (x * inv).to(w.dtype).to(tl.float32) * w.to(tl.float32)
        tl.store(out_row + cols, y.to(w.dtype), mask=mask)
    else:
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for start in range(0, hidden, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            x = tl.load(x_row + cols, mask=cols < hidden, other=0.0).to(tl.float32)
            acc += x * x
        inv = tl.rsqrt(tl.sum(acc, axis=0) / hidden + eps)
        for start in range(0, hidden, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            mask = cols < hidden
            x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
            w = tl.load(w_ptr + cols, mask=mask, other=0.0)
            y = (x * inv).to(w.dtype).to(tl.float32) * w.to(tl.float32)
            tl.store(out_row + cols, y.to(w.dtype), mask=mask)


def rms_norm(out: torch.Tensor, input: torch.Tensor, weight: torch.Tensor, epsilon: float) -> None:
    hidden = input.shape[-1]
    x = input.reshape(-1, hidden) if input.dim() != 2 else input
    o = out.reshape(-1, hidden)
    rows = x.shape[0]
    if rows == 0:
        return
    block = min(triton.next_power_of_2(hidden), 8192)
    single = block >= hidden
    _rms_norm_kernel[(rows,)](
        o,
        x,
        weight,
        hidden,
        x.stride(0),
        o.stride(0),
        float(epsilon),
        BLOCK=block,
        SINGLE_PASS=single,
        num_warps=8 if block >= 2048 else 4,
    )
