"""vLLM MoE routing and reduction: moe_align_block_size, batched_moe_align_block_size,
moe_lora_align_block_size, moe_sum, topk_softmax, grouped_topk, shuffle_rows."""

from __future__ import annotations

from typing import Any

import torch

from operators.catalog.common import product
from operators.catalog.vllm13._support import (
    UPSTREAM,
    at_upstream_rule,
    bytes_cost,
    close,
    dt,
    exact,
    vllm_spec,
)
from operators.spec import Comparison, Rng


def _ceil_to(n: torch.Tensor, multiple: int) -> torch.Tensor:
    return (n + multiple - 1) // multiple * multiple


def _align_into(
    flat_ids: torch.Tensor,
    keep: torch.Tensor,
    num_experts: int,
    block_size: int,
    sorted_out: torch.Tensor,
    experts_out: torch.Tensor,
    expert_map: torch.Tensor | None,
    pad_expert: int,
) -> int:
    """Group the kept positions of flat_ids by expert (ascending position within an expert), pad each
    expert's run to a multiple of block_size; write sorted ids, per-block expert ids; return the total."""
    numel = flat_ids.numel()
    valid = keep & (flat_ids < num_experts) & (flat_ids >= 0)
    experts = flat_ids.long().clamp(0, max(num_experts - 1, 0))
    counts = torch.bincount(experts[valid], minlength=num_experts)
    padded = _ceil_to(counts, block_size)
    starts = torch.cumsum(padded, 0) - padded
    total = int(padded.sum())
    sorted_out.fill_(numel)
    positions = torch.nonzero(valid).flatten()
    if positions.numel():
        order = torch.argsort(experts[positions], stable=True)
        pos_sorted = positions[order]
        exp_sorted = experts[pos_sorted]
        run_start = torch.cumsum(counts, 0) - counts
        rank = torch.arange(pos_sorted.numel(), device=flat_ids.device) - run_start[exp_sorted]
        sorted_out[starts[exp_sorted] + rank] = pos_sorted.to(sorted_out.dtype)
    experts_out.fill_(pad_expert)
    block_owner = torch.repeat_interleave(torch.arange(num_experts, device=flat_ids.device), padded // block_size)
    if expert_map is not None:
        block_owner = expert_map.long()[block_owner]
    experts_out[: block_owner.numel()] = block_owner.to(experts_out.dtype)
    return total


def _segments_equal(
    out_sorted: torch.Tensor,
    ref_sorted: torch.Tensor,
    ref_experts: torch.Tensor,
    total: int,
    block_size: int,
    what: str,
) -> Comparison:
    """sorted_token_ids may order tokens freely inside one expert's padded run (vLLM uses atomics):
    compare each block's multiset of ids, and everything past `total` exactly (the sentinel)."""
    device = ref_sorted.device
    o = out_sorted.detach().to(device).long()
    r = ref_sorted.detach().long()
    if o.shape != r.shape or out_sorted.dtype != ref_sorted.dtype:
        return Comparison(False, reason=f"{what}: shape/dtype {tuple(o.shape)}/{out_sorted.dtype} differs")
    if not torch.equal(o[total:], r[total:]):
        return Comparison(False, reason=f"{what}: entries past num_tokens_post_pad differ")
    blocks = total // block_size
    owner = ref_experts.detach().to(device).long()[:blocks]
    # one run = consecutive blocks of the same expert; sort ids inside each run
    first = torch.ones(1, dtype=torch.long, device=device)
    run_id = torch.cumsum(torch.cat([first, (owner[1:] != owner[:-1]).long()]), 0)
    run_of_slot = (
        torch.repeat_interleave(run_id, block_size) if blocks else torch.zeros(0, dtype=torch.long, device=device)
    )
    big = int(r[:total].max()) + 1 if total else 1
    if total and (int(o[:total].min()) < 0 or int(o[:total].max()) >= big):
        return Comparison(False, reason=f"{what}: ids out of range")

    def canon(x: torch.Tensor) -> torch.Tensor:
        return torch.sort(run_of_slot * big + x[:total]).values

    if not torch.equal(canon(o), canon(r)):
        return Comparison(False, reason=f"{what}: token sets per expert differ")
    return Comparison(True, 0.0, 0.0)


# ---------------------------------------------------------------- moe_align_block_size


def moe_align_block_size(
    topk_ids, num_experts, block_size, sorted_token_ids, experts_ids, num_tokens_post_pad, expert_map=None
):
    flat = topk_ids.reshape(-1)
    keep = torch.ones_like(flat, dtype=torch.bool)
    total = _align_into(flat, keep, num_experts, block_size, sorted_token_ids, experts_ids, expert_map, 0)
    num_tokens_post_pad.fill_(total)


def _align_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    tokens, topk, experts, bs = case["num_tokens"], case["topk"], case["num_experts"], case["block_size"]
    ids = rng.randint(0, experts, (tokens, topk), "int32")
    max_padded = tokens * topk + experts * (bs - 1)
    dev = rng.device
    return {
        "topk_ids": ids,
        "num_experts": experts,
        "block_size": bs,
        "sorted_token_ids": torch.full((max_padded,), -1, dtype=torch.int32, device=dev),
        "experts_ids": torch.full((max_padded // bs,), -1, dtype=torch.int32, device=dev),
        "num_tokens_post_pad": torch.full((1,), -1, dtype=torch.int32, device=dev),
        "expert_map": None,
    }


def _align_compare(out: Any, ref: Any, case: Any, inputs: Any) -> Comparison:
    if not isinstance(out, (tuple, list)) or len(out) != 3:
        return Comparison(False, reason="expected (sorted_token_ids, experts_ids, num_tokens_post_pad)")
    for i in (2, 1):
        c = exact(out[i], ref[i], f"output[{i}]")
        if not c.passed:
            return c
    return _segments_equal(out[0], ref[0], ref[1], int(ref[2][0]), inputs["block_size"], "sorted_token_ids")


MOE_ALIGN_BLOCK_SIZE = vllm_spec(
    name="moe_align_block_size",
    category="moe",
    description=(
        "Group the flattened top-k slots (index i = token*topk + k) by expert and pad every expert's run to a "
        "multiple of block_size. sorted_token_ids[...] = slot indices, expert by expert, padding and the tail "
        "filled with the sentinel topk_ids.numel(); experts_ids[b] = expert owning block b (0 past the end); "
        "num_tokens_post_pad[0] = padded total. Buffers are preallocated (len T*k + E*(block_size-1))."
    ),
    reference_impl=moe_align_block_size,
    make_inputs=_align_inputs,
    cases={
        "smoke": [
            {"num_tokens": 7, "num_experts": 4, "block_size": 4, "topk": 2},
            {"num_tokens": 16, "num_experts": 8, "block_size": 16, "topk": 3},
        ],
        "full": product(
            num_tokens=[128, 1024, 4096, 6152, 11575, 16384],
            num_experts=[4, 8, 16, 32, 64],
            block_size=[8, 16, 32, 64],
            topk=[2, 4, 10],
        ),
        "edge": [
            {"num_tokens": 1, "num_experts": 257, "block_size": 128, "topk": 1},
            {"num_tokens": 33, "num_experts": 160, "block_size": 32, "topk": 8},
        ],
        "perf": [
            {"num_tokens": 16384, "num_experts": 256, "block_size": 64, "topk": 8},
            {"num_tokens": 4096, "num_experts": 64, "block_size": 16, "topk": 6},
        ],
    },
    fidelity=(
        "vLLM csrc/moe/moe_align_sum_kernels.cu semantics (sentinel = numel over the whole buffer, per-expert "
        "ceil to block_size, expert ids per block, remaining expert ids 0) and tests/kernels/moe/"
        "test_moe_align_block_size.py (torch_moe_align_block_size). Upstream grid (360 cases). Order inside one "
        "expert's run is free (vLLM fills it with atomics): compared as per-run sets, the rest exactly."
    ),
    returns=False,
    mutates=("sorted_token_ids", "experts_ids", "num_tokens_post_pad"),
    compare=_align_compare,
    cost=bytes_cost(),
)


# ---------------------------------------------------------------- batched_moe_align_block_size


def batched_moe_align_block_size(
    max_tokens_per_batch, block_size, expert_num_tokens, sorted_ids, expert_ids, num_tokens_post_pad
):
    experts = expert_num_tokens.numel()
    counts = expert_num_tokens.long()
    padded = _ceil_to(counts, block_size)
    starts = torch.cumsum(padded, 0) - padded
    sorted_ids.fill_(experts * max_tokens_per_batch)
    expert_ids.fill_(-1)
    # all experts at once (no per-expert launches or host reads): token i of expert e goes to starts[e] + i
    expert_range = torch.arange(experts, device=counts.device)
    owner = torch.repeat_interleave(expert_range, counts)
    rank = torch.arange(owner.numel(), device=counts.device) - (torch.cumsum(counts, 0) - counts)[owner]
    sorted_ids[starts[owner] + rank] = (owner * max_tokens_per_batch + rank).to(sorted_ids.dtype)
    block_owner = torch.repeat_interleave(expert_range, padded // block_size)
    expert_ids[: block_owner.numel()] = block_owner.to(expert_ids.dtype)
    num_tokens_post_pad.fill_(padded.sum())


def _batched_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    experts, bs, max_tokens = case["config"]
    size = experts * _ceil_to(torch.tensor(max_tokens), bs).item()
    dev = rng.device
    return {
        "max_tokens_per_batch": max_tokens,
        "block_size": bs,
        "expert_num_tokens": rng.randint(1, max(2, max_tokens // 2), (experts,), "int32"),
        "sorted_ids": torch.full((size,), -7, dtype=torch.int32, device=dev),
        "expert_ids": torch.full((size // bs,), -7, dtype=torch.int32, device=dev),
        "num_tokens_post_pad": torch.full((1,), -7, dtype=torch.int32, device=dev),
    }


BATCHED_MOE_ALIGN_BLOCK_SIZE = vllm_spec(
    name="batched_moe_align_block_size",
    category="moe",
    description=(
        "Batched (expert-major) variant of moe_align_block_size: expert e owns token ids "
        "[e*max_tokens_per_batch, e*max_tokens_per_batch + expert_num_tokens[e]); each expert's run is padded to "
        "a multiple of block_size. sorted_ids gets the ids (sentinel E*max_tokens_per_batch elsewhere), "
        "expert_ids the owner of each block (-1 elsewhere), num_tokens_post_pad[0] the padded total."
    ),
    reference_impl=batched_moe_align_block_size,
    make_inputs=_batched_inputs,
    cases={
        "smoke": [{"config": [4, 4, 16]}, {"config": [3, 8, 32]}],
        "full": [
            {"config": list(c)}
            for c in [
                (4, 4, 32),
                (8, 8, 64),
                (16, 4, 128),
                (8, 4, 256),
                (32, 8, 128),
                (32, 8, 64),
                (64, 8, 128),
                (64, 16, 256),
                (128, 16, 256),
            ]
        ],
        "edge": [{"config": [1, 16, 16]}, {"config": [5, 32, 64]}],
        "perf": [{"config": [256, 64, 512]}, {"config": [512, 16, 256]}],
    },
    fidelity=(
        "vLLM csrc/moe/moe_align_sum_kernels.cu batched_moe_align_block_size_kernel semantics (sentinel, -1 "
        "expert ids, exclusive scan of padded counts) and test_batched_moe_align_block_size. Upstream configs "
        "(9); all outputs exact (the layout is deterministic)."
    ),
    returns=False,
    mutates=("sorted_ids", "expert_ids", "num_tokens_post_pad"),
    checkers=(exact, exact, exact),
    cost=bytes_cost(),
)


# ---------------------------------------------------------------- moe_lora_align_block_size


def processed_loras(lora_ids: torch.Tensor, adapter_enabled: torch.Tensor, max_loras: int) -> list[int]:
    """The LoRA slots vLLM writes: it launches one program per entry of lora_ids[:max_loras], and -1 or a
    disabled adapter writes nothing. (vLLM's large-batch sort kernel still scatters into the slots of
    disabled adapters, so only these slots' sorted_token_ids / experts_ids are defined.)"""
    enabled = adapter_enabled.tolist()
    return sorted({i for i in lora_ids[:max_loras].tolist() if 0 <= i < max_loras and enabled[i] != 0})


def moe_lora_align_block_size(
    topk_ids,
    token_lora_mapping,
    num_experts,
    block_size,
    max_loras,
    max_num_tokens_padded,
    max_num_m_blocks,
    sorted_token_ids,
    experts_ids,
    num_tokens_post_pad,
    adapter_enabled,
    lora_ids,
    expert_map=None,
):
    flat = topk_ids.reshape(-1).long()
    topk = topk_ids.shape[-1]
    token_of_slot = torch.arange(flat.numel(), device=flat.device) // topk
    routed = (flat >= 0) & (flat < num_experts)
    if expert_map is not None:
        # vLLM maps a global expert to its local id before counting; -1 (not on this rank) drops the slot
        local = expert_map.long()[flat.clamp(0, num_experts - 1)]
        routed &= local != -1
        flat = torch.where(routed, local, flat)
    for lora_id in processed_loras(lora_ids, adapter_enabled, max_loras):
        keep = routed & (token_lora_mapping.long()[token_of_slot] == lora_id)
        seg = slice(lora_id * max_num_tokens_padded, (lora_id + 1) * max_num_tokens_padded)
        blocks = slice(lora_id * max_num_m_blocks, (lora_id + 1) * max_num_m_blocks)
        total = _align_into(flat, keep, num_experts, block_size, sorted_token_ids[seg], experts_ids[blocks], None, -1)
        num_tokens_post_pad[lora_id] = total


def _lora_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    tokens, topk, experts, bs, loras = case["config"]
    max_padded = tokens * topk + experts * bs
    max_blocks = max_padded // bs
    dev = rng.device
    enabled = case.get("adapter_enabled", [1] * (loras + 1))
    ids = case.get("lora_ids", list(range(loras)))
    return {
        "topk_ids": rng.randint(0, experts, (tokens, topk), "int32"),
        "token_lora_mapping": rng.randint(0, loras, (tokens,), "int32"),
        "num_experts": experts,
        "block_size": bs,
        "max_loras": loras,
        "max_num_tokens_padded": max_padded,
        "max_num_m_blocks": max_blocks,
        "sorted_token_ids": torch.full((loras * max_padded,), -7, dtype=torch.int32, device=dev),
        "experts_ids": torch.full((loras * max_blocks,), -7, dtype=torch.int32, device=dev),
        "num_tokens_post_pad": torch.full((loras,), -7, dtype=torch.int32, device=dev),
        "adapter_enabled": torch.tensor(enabled, dtype=torch.int32, device=dev),
        "lora_ids": torch.tensor(ids, dtype=torch.int32, device=dev),
        "expert_map": None,
    }


def _lora_compare(out: Any, ref: Any, case: Any, inputs: Any) -> Comparison:
    if not isinstance(out, (tuple, list)) or len(out) != 3:
        return Comparison(False, reason="expected (sorted_token_ids, experts_ids, num_tokens_post_pad)")
    c = exact(out[2], ref[2], "num_tokens_post_pad")
    if not c.passed:
        return c
    bs, pad, blocks = inputs["block_size"], inputs["max_num_tokens_padded"], inputs["max_num_m_blocks"]
    totals = ref[2].tolist()  # one padded total per LoRA slot: a handful of scalars
    for lora in processed_loras(inputs["lora_ids"], inputs["adapter_enabled"], inputs["max_loras"]):
        # the whole segment is defined: the owning expert per used block, -1 after
        c = exact(
            out[1][lora * blocks : (lora + 1) * blocks],
            ref[1][lora * blocks : (lora + 1) * blocks],
            f"experts_ids[lora {lora}]",
        )
        if not c.passed:
            return c
        c = _segments_equal(
            out[0][lora * pad : (lora + 1) * pad],
            ref[0][lora * pad : (lora + 1) * pad],
            ref[1][lora * blocks : (lora + 1) * blocks],
            int(totals[lora]),
            bs,
            f"sorted_token_ids[lora {lora}]",
        )
        if not c.passed:
            return c
    return Comparison(True, 0.0, 0.0)


MOE_LORA_ALIGN_BLOCK_SIZE = vllm_spec(
    name="moe_lora_align_block_size",
    category="moe",
    description=(
        "Per-LoRA moe_align_block_size: for every id in lora_ids[:max_loras] that is not -1 and enabled "
        "(adapter_enabled[id] != 0), align the top-k slots (index token*topk + k) of the tokens mapped to it "
        "(token_lora_mapping[token] == id) by expert, each expert's run padded to a multiple of block_size, into "
        "sorted_token_ids[id*max_num_tokens_padded:(id+1)*max_num_tokens_padded] (rest of the segment = sentinel "
        "topk_ids.numel()), experts_ids[id*max_num_m_blocks:(id+1)*max_num_m_blocks] (owning expert per block, -1 "
        "after the last used block) and num_tokens_post_pad[id] (padded total). Other LoRA slots are not written."
    ),
    reference_impl=moe_lora_align_block_size,
    make_inputs=_lora_inputs,
    cases={
        "smoke": [{"config": [8, 2, 4, 4, 2]}, {"config": [6, 3, 8, 8, 3]}],
        "full": [
            {"config": list(c)}
            for c in [
                (16, 2, 8, 4, 2),
                (32, 2, 8, 8, 4),
                (64, 4, 16, 4, 2),
                (128, 2, 16, 8, 4),
                (128, 4, 16, 4, 2),
                (32, 4, 8, 4, 2),
                (256, 4, 16, 8, 4),
                (256, 2, 16, 4, 2),
                (128, 2, 32, 8, 4),
                (64, 2, 8, 4, 2),
            ]
        ],
        "edge": [
            {"config": [1, 1, 4, 16, 1]},
            # slot 2 disabled, a -1 entry, slot 1 never listed: only slot 0 is written
            {"config": [20, 2, 8, 4, 3], "lora_ids": [2, -1, 0], "adapter_enabled": [1, 1, 0, 1]},
            # vLLM's own test passes lora_ids = arange(max_loras + 2): entries past max_loras are never read
            {"config": [12, 3, 8, 4, 2], "lora_ids": [0, 1, 2, 3]},
        ],
        "perf": [{"config": [4096, 8, 64, 64, 4]}],
    },
    fidelity=(
        "Checked line by line against vLLM's kernels (vllm-project/vllm; the v0.13.x tag could not be fetched, "
        "so two stored revisions were read and agree on everything below): csrc/moe/moe_lora_align_sum_kernels.cu "
        "@3a04cf8f (one block per lora_ids[0..max_loras), lora_ids[i] == -1 or adapter_enabled[id] == 0 returns; "
        "segment id*max_num_tokens_padded filled with numel, segment id*max_num_m_blocks filled with -1, "
        "num_tokens_post_pad[id] = sum over experts of ceil(count/block_size)*block_size, counting only slots "
        "whose token_lora_mapping[slot // topk] == id) and the merged moe_align_sum_kernels.cu version with "
        "maybe_expert_map (expert ids >= num_experts skipped, then mapped through expert_map and -1 dropped before "
        "counting; blocks past the padded total set to -1). Order inside an expert's run is thread order or "
        "atomics in vLLM, so the comparison takes each run as a multiset; the written slots' experts_ids segments "
        "and all of num_tokens_post_pad are compared exactly. Other slots' segments (-1, disabled, unlisted) are not compared: "
        "vLLM's large-batch sort kernel checks only lora_id != -1 and scatters into disabled slots. vLLM's test "
        "(tests/lora/test_moe_lora_align_sum.py @081b8e32) checks that every non-sentinel id of block b routes to "
        "experts_ids[b]; tests/operators/test_vllm13_layouts.py re-implements that oracle (plus the token's LoRA) "
        "and a per-LoRA, per-expert brute-force loop, and matches the reference exactly on every tier and random "
        "configs. Cases never pass expert_map (its handling follows the merged source only). Upstream grid (10)."
    ),
    returns=False,
    mutates=("sorted_token_ids", "experts_ids", "num_tokens_post_pad"),
    compare=_lora_compare,
    cost=bytes_cost(),
)


# ---------------------------------------------------------------- moe_sum


def moe_sum(input: torch.Tensor, output: torch.Tensor) -> None:
    output.copy_(input.float().sum(dim=1).to(output.dtype))


def _moe_sum_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    t, k, h = case["num_tokens"], case["topk"], case["hidden_size"]
    return {
        "input": rng.randn((t, k, h), case["dtype"]),
        "output": torch.full((t, h), float("nan"), dtype=dt(case["dtype"]), device=rng.device),
    }


MOE_SUM = vllm_spec(
    name="moe_sum",
    category="moe",
    description="output[t, :] = sum over k of input[t, k, :] (input [T, topk, H], output [T, H], fp32 accumulation).",
    reference_impl=moe_sum,
    make_inputs=_moe_sum_inputs,
    cases={
        "smoke": [
            {"num_tokens": 3, "hidden_size": 40, "topk": 2, "dtype": "float16"},
            {"num_tokens": 2, "hidden_size": 33, "topk": 4, "dtype": "float32"},
        ],
        "full": product(
            num_tokens=[1, 128, 1024, 5333], hidden_size=[32, 512, 4096], topk=[2, 4], dtype=["float16", "bfloat16"]
        ),
        "edge": [
            {"num_tokens": 7, "hidden_size": 511, "topk": 6, "dtype": "float32"},
            {"num_tokens": 5, "hidden_size": 128, "topk": 1, "dtype": "float16"},
        ],
        "perf": [
            {"num_tokens": 8192, "hidden_size": 7168, "topk": 8, "dtype": "bfloat16"},
            {"num_tokens": 4096, "hidden_size": 4096, "topk": 2, "dtype": "float16"},
        ],
    },
    fidelity=(
        "vLLM csrc/moe/moe_align_sum_kernels.cu moe_sum (input [T, topk, H]; topk other than 2-4 falls back to "
        "at::sum_out) and FlagGems test_moe_sum. Upstream's test passes a 2-D [T*topk, H] input (vLLM then reads "
        "topk = H); we use the documented 3-D layout with the upstream grid (48). " + at_upstream_rule(72, 72) + "."
    ),
    returns=False,
    mutates=("output",),
    checkers=(UPSTREAM,),
    cost=bytes_cost(lambda c, i: float(i["input"].numel())),
)


# ---------------------------------------------------------------- topk_softmax


def topk_softmax(
    topk_weights: torch.Tensor,
    topk_ids: torch.Tensor,
    token_expert_indices: torch.Tensor,
    gating_output: torch.Tensor,
    renormalize: bool = False,
) -> None:
    probs = torch.softmax(gating_output.float(), dim=-1)
    k = topk_weights.shape[-1]
    # descending, ties to the lower expert index (stable sort of the negated scores)
    order = torch.sort(-probs, dim=-1, stable=True).indices[:, :k]
    weights = probs.gather(1, order)
    if renormalize:
        weights = weights / weights.sum(dim=-1, keepdim=True)
    tokens = gating_output.shape[0]
    topk_weights.copy_(weights)
    topk_ids.copy_(order.to(topk_ids.dtype))
    slot = torch.arange(k, device=probs.device)[None, :] * tokens + torch.arange(tokens, device=probs.device)[:, None]
    token_expert_indices.copy_(slot.to(token_expert_indices.dtype))


def _topk_softmax_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    t, e, k = case["num_tokens"], case["num_experts"], case["top_k"]
    dev = rng.device
    return {
        "topk_weights": torch.full((t, k), float("nan"), dtype=torch.float32, device=dev),
        "topk_ids": torch.full((t, k), -1, dtype=torch.int32, device=dev),
        "token_expert_indices": torch.full((t, k), -1, dtype=torch.int32, device=dev),
        "gating_output": rng.randn((t, e), case.get("dtype", "float32")),
        "renormalize": case["renormalize"],
    }


TOPK_SOFTMAX = vllm_spec(
    name="topk_softmax",
    category="moe",
    description=(
        "MoE router: p = softmax(gating_output.float()) per token; topk_ids = indices of the k largest p "
        "(descending), topk_weights = p at those ids (divided by their sum when renormalize), "
        "token_expert_indices[t, j] = j * num_tokens + t. Writes into the three preallocated outputs."
    ),
    reference_impl=topk_softmax,
    make_inputs=_topk_softmax_inputs,
    cases={
        "smoke": [
            {"num_tokens": 5, "num_experts": 8, "top_k": 2, "renormalize": False},
            {"num_tokens": 3, "num_experts": 16, "top_k": 4, "renormalize": True},
        ],
        "full": product(
            num_tokens=[1, 7, 32, 128, 1024, 4096], num_experts=[8, 16, 64], top_k=[1, 2, 4], renormalize=[False, True]
        ),
        "edge": [
            {"num_tokens": 33, "num_experts": 6, "top_k": 3, "renormalize": True, "dtype": "bfloat16"},
            {"num_tokens": 7, "num_experts": 256, "top_k": 8, "renormalize": True, "dtype": "float16"},
        ],
        "perf": [
            {"num_tokens": 16384, "num_experts": 128, "top_k": 8, "renormalize": True},
            {"num_tokens": 8192, "num_experts": 64, "top_k": 6, "renormalize": False},
        ],
    },
    fidelity=(
        "vLLM csrc/moe/topk_softmax_kernels.cu semantics (fp32 softmax, descending top-k, source row index "
        "k*num_tokens + token) as in tests/kernels/moe/test_fused_topk.py (torch.topk on softmax). Upstream grid "
        "(108). Weights atol=rtol=1e-5 (upstream fp32 resolution), ids and indices exact; random fp32 logits make "
        "ties improbable (the reference breaks ties toward the lower expert id)."
    ),
    returns=False,
    mutates=("topk_weights", "topk_ids", "token_expert_indices"),
    checkers=(close(1e-5, 1e-5), exact, exact),
    cost=bytes_cost(lambda c, i: 5.0 * i["gating_output"].numel(), dtype="float32"),
)


# ---------------------------------------------------------------- grouped_topk


def grouped_topk(
    scores: torch.Tensor,
    num_expert_group: int,
    topk_group: int,
    topk: int,
    renormalize: bool,
    routed_scaling_factor: float,
    bias: torch.Tensor,
    scoring_func: int = 0,
) -> tuple[torch.Tensor, torch.Tensor]:
    tokens, experts = scores.shape
    s = scores.float()
    if scoring_func == 1:
        s = torch.sigmoid(s)
    biased = s + bias.float()[None, :]
    per_group = biased.view(tokens, num_expert_group, experts // num_expert_group)
    group_score = per_group.topk(min(2, per_group.shape[-1]), dim=-1).values.sum(dim=-1)
    groups = torch.sort(-group_score, dim=-1, stable=True).indices[:, :topk_group]
    group_mask = torch.zeros_like(group_score, dtype=torch.bool).scatter_(1, groups, True)
    expert_mask = group_mask[:, :, None].expand_as(per_group).reshape(tokens, experts)
    masked = biased.masked_fill(~expert_mask, float("-inf"))
    ids = torch.sort(-masked, dim=-1, stable=True).indices[:, :topk]
    weights = s.gather(1, ids)
    if renormalize:
        weights = weights / weights.sum(dim=-1, keepdim=True)
    return weights * routed_scaling_factor, ids.to(torch.int32)


def _representable_pool(dtype: torch.dtype, low: float, high: float, *, signed: bool) -> torch.Tensor:
    """Every value of a 16-bit float dtype in [low, high) (and their negatives when signed)."""
    lo_bits = int(torch.tensor(low, dtype=dtype).view(torch.int16))
    hi_bits = int(torch.tensor(high, dtype=dtype).view(torch.int16))
    pool = torch.arange(lo_bits, hi_bits, dtype=torch.int16).view(dtype)
    return torch.cat([-pool, pool]) if signed else pool


def _distinct_scores(
    rng: Rng, tokens: int, experts: int, dtype: str, low: float, high: float, signed: bool
) -> torch.Tensor:
    """Rows of pairwise distinct, exactly representable values, so selected ids never hinge on ties.
    Each row takes the pool positions of its `experts` largest random keys: distinct positions, in
    random order, for all rows at once (a randperm per row was 8192 launches per perf input set)."""
    pool = _representable_pool(dt(dtype), low, high, signed=signed).to(rng.device)
    rows_per_chunk = max(1, (16 << 20) // pool.numel())  # bounds the keys held at once to 16M floats
    chunks = [
        pool[rng.uniform((min(rows_per_chunk, tokens - start), pool.numel()), 0.0, 1.0).topk(experts, dim=1).indices]
        for start in range(0, tokens, rows_per_chunk)
    ]
    return torch.cat(chunks) if chunks else torch.zeros((0, experts), dtype=dt(dtype), device=rng.device)


def _grouped_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    tokens, experts = case["scores"]
    groups = case["num_expert_group"]
    if case["scoring_func"] == 1:
        scores = _distinct_scores(rng, tokens, experts, case["dtype"], 1 / 16, 4.0, signed=True)
    else:
        # scoring_func 0 uses the raw scores as weights: keep them positive so renormalisation is well posed
        scores = _distinct_scores(rng, tokens, experts, case["dtype"], 1 / 8, 4.0, signed=False)
    bias = _distinct_scores(rng, 1, experts, case["dtype"], 1 / 256, 0.5, signed=True)[0]
    return {
        "scores": scores,
        "num_expert_group": groups,
        "topk_group": min(case["topk_group"], groups),
        "topk": case["topk"],
        "renormalize": case["renormalize"],
        "routed_scaling_factor": case.get("routed_scaling_factor", 1.0),
        "bias": bias,
        "scoring_func": case["scoring_func"],
    }


def _grouped_cases() -> list[dict[str, Any]]:
    cases = product(
        scores=[(1, 32), (128, 256), (1024, 512)],
        num_expert_group=[1, 2, 4],
        topk_group=[1, 2],
        topk=[1, 2],
        renormalize=[False, True],
        scoring_func=[0, 1],
        dtype=["float16", "bfloat16"],
    )
    return [c for c in cases if c["scores"][1] % c["num_expert_group"] == 0]


GROUPED_TOPK = vllm_spec(
    name="grouped_topk",
    category="moe",
    description=(
        "DeepSeek-V3 grouped routing. s = sigmoid(scores) (scoring_func 1) or scores (0), in fp32; biased = s + "
        "bias; experts split into num_expert_group equal groups, group score = sum of the 2 largest biased "
        "scores; keep the topk_group best groups; ids = top-k of biased scores inside kept groups (descending); "
        "weights = s[ids] (divided by their sum when renormalize) * routed_scaling_factor. Returns "
        "(weights fp32 [T, topk], ids int32 [T, topk])."
    ),
    reference_impl=grouped_topk,
    make_inputs=_grouped_inputs,
    cases={
        "smoke": [
            {
                "scores": [3, 16],
                "num_expert_group": 4,
                "topk_group": 2,
                "topk": 2,
                "renormalize": True,
                "scoring_func": 1,
                "dtype": "float16",
            },
            {
                "scores": [2, 32],
                "num_expert_group": 2,
                "topk_group": 1,
                "topk": 3,
                "renormalize": False,
                "scoring_func": 0,
                "dtype": "bfloat16",
                "routed_scaling_factor": 2.5,
            },
        ],
        "full": _grouped_cases(),
        "edge": [
            {
                "scores": [33, 256],
                "num_expert_group": 8,
                "topk_group": 4,
                "topk": 8,
                "renormalize": True,
                "scoring_func": 1,
                "dtype": "bfloat16",
                "routed_scaling_factor": 2.5,
            }
        ],
        "perf": [
            {
                "scores": [8192, 256],
                "num_expert_group": 8,
                "topk_group": 4,
                "topk": 8,
                "renormalize": True,
                "scoring_func": 1,
                "dtype": "bfloat16",
                "routed_scaling_factor": 2.5,
            }
        ],
    },
    fidelity=(
        "vLLM's grouped_topk (fused_moe grouped_topk with e_score_correction_bias: group score = sum of top-2 "
        "biased scores, weights from unbiased scores, renormalise, scale) which vLLM's test_grouped_topk uses as "
        "the reference for the CUDA op. Upstream grid (288 cases, invalid group splits dropped). Scores are "
        "per-row distinct and exactly representable so ids do not depend on tie-breaking; weights by "
        + at_upstream_rule(0, 410)
        + ", ids exact. scoring_func=0 inputs are kept positive (upstream uses randn, which makes renormalised "
        "weights ill-conditioned)."
    ),
    returns=True,
    checkers=(UPSTREAM, exact),
    cost=bytes_cost(lambda c, i: 8.0 * i["scores"].numel()),
)


# ---------------------------------------------------------------- shuffle_rows


def shuffle_rows(input_tensor: torch.Tensor, dst2src_map: torch.Tensor) -> torch.Tensor:
    return input_tensor[dst2src_map.long()]


def _shuffle_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    rows, cols, factor = case["rows"], case["cols"], case["dst_factor"]
    if factor == 1:
        mapping = rng.randperm(rows) if rows > 1 else torch.zeros(1, dtype=torch.int64, device=rng.device)
    else:
        mapping = rng.randint(0, rows, (rows * factor,))
    return {"input_tensor": rng.randn((rows, cols), case["dtype"]), "dst2src_map": mapping.to(torch.int32)}


SHUFFLE_ROWS = vllm_spec(
    name="shuffle_rows",
    category="moe",
    description="Row gather: returns out [len(dst2src_map), H] with out[i] = input_tensor[dst2src_map[i]].",
    reference_impl=shuffle_rows,
    make_inputs=_shuffle_inputs,
    cases={
        "smoke": [
            {"rows": 5, "cols": 32, "dst_factor": 1, "dtype": "float16"},
            {"rows": 4, "cols": 24, "dst_factor": 2, "dtype": "bfloat16"},
        ],
        "full": product(
            rows=[1, 128, 1024, 5333], cols=[32, 512, 4096], dst_factor=[1, 2], dtype=["float16", "bfloat16"]
        ),
        "edge": [{"rows": 3, "cols": 7, "dst_factor": 2, "dtype": "float32"}],
        "perf": [{"rows": 8192, "cols": 7168, "dst_factor": 2, "dtype": "bfloat16"}],
    },
    fidelity="vLLM _custom_ops.shuffle_rows (gather by dst2src_map, new output); upstream grid (48); exact.",
    returns=True,
    checkers=(exact,),
    cost=bytes_cost(),
)

SPECS = [
    MOE_ALIGN_BLOCK_SIZE,
    BATCHED_MOE_ALIGN_BLOCK_SIZE,
    MOE_LORA_ALIGN_BLOCK_SIZE,
    MOE_SUM,
    TOPK_SOFTMAX,
    GROUPED_TOPK,
    SHUFFLE_ROWS,
]
