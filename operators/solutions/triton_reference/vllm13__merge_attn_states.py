"""vllm13::merge_attn_states in Triton: LSE-weighted merge of two partial attention outputs, one program
per (token, head). LSEs are [H, T]; +inf counts as -inf (an empty part)."""

import torch
import triton
import triton.language as tl


@triton.jit
def _merge_kernel(
    out_ptr,
    p_ptr,
    p_lse_ptr,
    s_ptr,
    s_lse_ptr,
    out_lse_ptr,
    num_tokens,
    head_dim,
    out_tok_stride,
    out_head_stride,
    p_tok_stride,
    p_head_stride,
    s_tok_stride,
    s_head_stride,
    HAS_OUT_LSE: tl.constexpr,
    BLOCK_D: tl.constexpr,
):
    tok = tl.program_id(0).to(tl.int64)
    head = tl.program_id(1).to(tl.int64)
    lp = tl.load(p_lse_ptr + head * num_tokens + tok).to(tl.float32)
    ls = tl.load(s_lse_ptr + head * num_tokens + tok).to(tl.float32)
    lp = tl.where(lp == float("inf"), float("-inf"), lp)
    ls = tl.where(ls == float("inf"), float("-inf"), ls)
    m = tl.maximum(lp, ls)
    wp = tl.exp(lp - m)
    ws = tl.exp(ls - m)
    total = wp + ws
    a = wp / total
    b = ws / total
    d = tl.arange(0, BLOCK_D)
    mask = d < head_dim
    p = tl.load(p_ptr + tok * p_tok_stride + head * p_head_stride + d, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(s_ptr + tok * s_tok_stride + head * s_head_stride + d, mask=mask, other=0.0).to(tl.float32)
    out = p * a + s * b
    tl.store(out_ptr + tok * out_tok_stride + head * out_head_stride + d, out.to(out_ptr.dtype.element_ty), mask=mask)
    if HAS_OUT_LSE:
        tl.store(out_lse_ptr + head * num_tokens + tok, tl.log(total) + m)


def merge_attn_states(
    output: torch.Tensor,
    prefix_output: torch.Tensor,
    prefix_lse: torch.Tensor,
    suffix_output: torch.Tensor,
    suffix_lse: torch.Tensor,
    output_lse: torch.Tensor | None = None,
) -> None:
    tokens, heads, head_dim = output.shape
    if tokens == 0:
        return
    has_lse = output_lse is not None
    _merge_kernel[(tokens, heads)](
        output,
        prefix_output,
        prefix_lse,
        suffix_output,
        suffix_lse,
        output_lse if has_lse else prefix_lse,
        tokens,
        head_dim,
        output.stride(0),
        output.stride(1),
        prefix_output.stride(0),
        prefix_output.stride(1),
        suffix_output.stride(0),
        suffix_output.stride(1),
        HAS_OUT_LSE=has_lse,
        BLOCK_D=triton.next_power_of_2(head_dim),
    )
