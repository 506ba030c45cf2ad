"""vllm13::moe_align_block_size in Triton: histogram of expert ids (atomics), one-program prefix sum of the
block-padded counts, per-block expert ids, sentinel fill, then an atomic scatter of slot indices (the order
inside one expert's run is free, as in vLLM)."""

import torch
import triton
import triton.language as tl


@triton.jit
def _count_kernel(ids_ptr, counts_ptr, numel, num_experts, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    e = tl.load(ids_ptr + offs, mask=mask, other=0).to(tl.int32)
    ok = mask & (e >= 0) & (e < num_experts)
    tl.atomic_add(counts_ptr + e, tl.full([BLOCK], 1, tl.int32), mask=ok)


@triton.jit
def _scan_kernel(counts_ptr, starts_ptr, post_pad_ptr, num_experts, block_size, BLOCK_E: tl.constexpr):
    e = tl.arange(0, BLOCK_E)
    counts = tl.load(counts_ptr + e, mask=e < num_experts, other=0)
    padded = (counts + block_size - 1) // block_size * block_size
    inclusive = tl.cumsum(padded, axis=0)
    tl.store(starts_ptr + e, inclusive - padded, mask=e < num_experts)
    tl.store(starts_ptr + num_experts + e, inclusive, mask=e < num_experts)  # run ends, after the starts
    tl.store(post_pad_ptr, tl.sum(padded, axis=0))


@triton.jit
def _expert_ids_kernel(
    ends_ptr,
    post_pad_ptr,
    expert_ids_ptr,
    num_blocks,
    num_experts,
    block_size,
    BLOCK_B: tl.constexpr,
    BLOCK_E: tl.constexpr,
):
    b = tl.program_id(0) * BLOCK_B + tl.arange(0, BLOCK_B)
    e = tl.arange(0, BLOCK_E)
    ends = tl.load(ends_ptr + e, mask=e < num_experts, other=2147483647)
    first_token = b * block_size
    owner = tl.sum((ends[None, :] <= first_token[:, None]).to(tl.int32), axis=1)
    total = tl.load(post_pad_ptr)
    owner = tl.where(first_token < total, owner, 0)
    tl.store(expert_ids_ptr + b, owner, mask=b < num_blocks)


@triton.jit
def _fill_kernel(out_ptr, n, value, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.full([BLOCK], value, tl.int32), mask=offs < n)


@triton.jit
def _scatter_kernel(ids_ptr, starts_ptr, sorted_ptr, numel, num_experts, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    e = tl.load(ids_ptr + offs, mask=mask, other=0).to(tl.int32)
    ok = mask & (e >= 0) & (e < num_experts)
    dest = tl.atomic_add(starts_ptr + e, tl.full([BLOCK], 1, tl.int32), mask=ok)
    tl.store(sorted_ptr + dest, offs.to(tl.int32), mask=ok)


def moe_align_block_size(
    topk_ids, num_experts, block_size, sorted_token_ids, experts_ids, num_tokens_post_pad, expert_map=None
):
    if expert_map is not None:
        raise NotImplementedError("expert_map is not supported by this reference solution")
    ids = topk_ids.reshape(-1)
    numel = ids.numel()
    device = ids.device
    counts = torch.zeros(num_experts, dtype=torch.int32, device=device)
    starts_and_ends = torch.empty(2 * num_experts, dtype=torch.int32, device=device)
    block = 1024
    _fill_kernel[(triton.cdiv(sorted_token_ids.numel(), block),)](
        sorted_token_ids, sorted_token_ids.numel(), numel, BLOCK=block
    )
    if numel:
        _count_kernel[(triton.cdiv(numel, block),)](ids, counts, numel, num_experts, BLOCK=block)
    block_e = triton.next_power_of_2(num_experts)
    _scan_kernel[(1,)](counts, starts_and_ends, num_tokens_post_pad, num_experts, block_size, BLOCK_E=block_e)
    num_blocks = experts_ids.numel()
    block_b = 64
    _expert_ids_kernel[(triton.cdiv(num_blocks, block_b),)](
        starts_and_ends[num_experts:],
        num_tokens_post_pad,
        experts_ids,
        num_blocks,
        num_experts,
        block_size,
        BLOCK_B=block_b,
        BLOCK_E=block_e,
    )
    if numel:
        _scatter_kernel[(triton.cdiv(numel, block),)](
            ids, starts_and_ends, sorted_token_ids, numel, num_experts, BLOCK=block
        )
