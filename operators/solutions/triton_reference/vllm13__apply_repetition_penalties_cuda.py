"""vllm13::apply_repetition_penalties_cuda in Triton: in place, seen tokens (prompt or output) get
logit / p when positive and logit * p otherwise."""

import torch
import triton
import triton.language as tl


@triton.jit
def _penalty_kernel(
    logits_ptr,
    prompt_ptr,
    output_ptr,
    penalty_ptr,
    vocab,
    logits_stride,
    prompt_stride,
    output_stride,
    BLOCK: tl.constexpr,
):
    row = tl.program_id(0).to(tl.int64)
    v = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = v < vocab
    x = tl.load(logits_ptr + row * logits_stride + v, mask=mask, other=0.0)
    seen = (tl.load(prompt_ptr + row * prompt_stride + v, mask=mask, other=0) != 0) | (
        tl.load(output_ptr + row * output_stride + v, mask=mask, other=0) != 0
    )
    p = tl.load(penalty_ptr + row).to(tl.float32)
    xf = x.to(tl.float32)
    penalised = tl.where(xf > 0, xf / p, xf * p)
    tl.store(logits_ptr + row * logits_stride + v, tl.where(seen, penalised, xf).to(x.dtype), mask=mask)


def apply_repetition_penalties_cuda(
    logits: torch.Tensor, prompt_mask: torch.Tensor, output_mask: torch.Tensor, repetition_penalties: torch.Tensor
) -> None:
    rows, vocab = logits.shape
    if rows == 0:
        return
    block = 1024
    # bool masks are read as bytes
    _penalty_kernel[(rows, triton.cdiv(vocab, block))](
        logits,
        prompt_mask.view(torch.uint8),
        output_mask.view(torch.uint8),
        repetition_penalties,
        vocab,
        logits.stride(0),
        prompt_mask.stride(0),
        output_mask.stride(0),
        BLOCK=block,
    )
