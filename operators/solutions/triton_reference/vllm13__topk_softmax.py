"""vllm13::topk_softmax in Triton: fp32 softmax over the experts of each token, then the k largest
probabilities (ties to the lower expert id), optional renormalisation; one program per token."""

import torch
import triton
import triton.language as tl


@triton.jit
def _topk_softmax_kernel(
    gating_ptr,
    weights_ptr,
    ids_ptr,
    src_ptr,
    num_tokens,
    num_experts,
    k,
    gating_stride,
    out_stride,
    RENORMALIZE: tl.constexpr,
    BLOCK_E: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    tok = tl.program_id(0).to(tl.int64)
    e = tl.arange(0, BLOCK_E)
    valid = e < num_experts
    logits = tl.load(gating_ptr + tok * gating_stride + e, mask=valid, other=float("-inf")).to(tl.float32)
    m = tl.max(logits, axis=0)
    num = tl.where(valid, tl.exp(logits - m), 0.0)
    probs = num / tl.sum(num, axis=0)
    remaining = tl.where(valid, probs, -1.0)
    slots = tl.arange(0, BLOCK_K)
    chosen_w = tl.zeros([BLOCK_K], dtype=tl.float32)
    chosen_id = tl.zeros([BLOCK_K], dtype=tl.int32)
    for j in range(0, k):
        best = tl.max(remaining, axis=0)
        best_id = tl.min(tl.where(remaining == best, e, BLOCK_E), axis=0)
        chosen_w = tl.where(slots == j, best, chosen_w)
        chosen_id = tl.where(slots == j, best_id, chosen_id)
        remaining = tl.where(e == best_id, -2.0, remaining)
    in_k = slots < k
    if RENORMALIZE:
        chosen_w = chosen_w / tl.sum(tl.where(in_k, chosen_w, 0.0), axis=0)
    base = tok * out_stride + slots
    tl.store(weights_ptr + base, chosen_w, mask=in_k)
    tl.store(ids_ptr + base, chosen_id.to(ids_ptr.dtype.element_ty), mask=in_k)
    tl.store(src_ptr + base, (slots * num_tokens + tok).to(src_ptr.dtype.element_ty), mask=in_k)


def topk_softmax(
    topk_weights: torch.Tensor,
    topk_ids: torch.Tensor,
    token_expert_indices: torch.Tensor,
    gating_output: torch.Tensor,
    renormalize: bool = False,
) -> None:
    tokens, experts = gating_output.shape
    k = topk_weights.shape[1]
    if tokens == 0:
        return
    _topk_softmax_kernel[(tokens,)](
        gating_output,
        topk_weights,
        topk_ids,
        token_expert_indices,
        tokens,
        experts,
        k,
        gating_output.stride(0),
        topk_weights.stride(0),
        RENORMALIZE=bool(renormalize),
        BLOCK_E=triton.next_power_of_2(experts),
        BLOCK_K=triton.next_power_of_2(k),
    )
