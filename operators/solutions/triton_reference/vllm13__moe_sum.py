"""vllm13::moe_sum in Triton: output[t, :] = sum_k input[t, k, :], fp32 accumulation."""

import torch
import triton
import triton.language as tl


@triton.jit
def _moe_sum_kernel(in_ptr, out_ptr, topk, hidden, in_tok_stride, in_k_stride, out_tok_stride, BLOCK: tl.constexpr):
    tok = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < hidden
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, topk):
        acc += tl.load(in_ptr + tok * in_tok_stride + k * in_k_stride + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + tok * out_tok_stride + cols, acc.to(out_ptr.dtype.element_ty), mask=mask)


def moe_sum(input: torch.Tensor, output: torch.Tensor) -> None:
    tokens, topk, hidden = input.shape
    if tokens == 0:
        return
    block = min(triton.next_power_of_2(hidden), 1024)
    grid = (tokens, triton.cdiv(hidden, block))
    _moe_sum_kernel[grid](input, output, topk, hidden, input.stride(0), input.stride(1), output.stride(0), BLOCK=block)
