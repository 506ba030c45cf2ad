"""vLLM attention ops: paged_attention_v1/v2 (decode over the v0 paged KV cache), merge_attn_states,
convert_vertical_slash_indexes (MInference sparse index conversion)."""

from __future__ import annotations

import math
from typing import Any

import torch

from operators.catalog.common import product
from operators.catalog.vllm13._support import (
    UPSTREAM,
    at_upstream_rule,
    close,
    dt,
    exact,
    ignore,
    vllm_spec,
)
from operators.spec import Cost, Rng

V2_PARTITION_SIZE = 512


# ---------------------------------------------------------------- paged attention


def _paged_decode(
    out: torch.Tensor,
    query: torch.Tensor,
    key_cache: torch.Tensor,
    value_cache: torch.Tensor,
    num_kv_heads: int,
    scale: float,
    block_tables: torch.Tensor,
    seq_lens: torch.Tensor,
    alibi_slopes: torch.Tensor | None,
    kv_cache_dtype: str,
    k_scale: torch.Tensor,
    v_scale: torch.Tensor,
) -> None:
    """Single-query attention of every sequence over its cached keys/values, computed in fp32."""
    seqs, heads, head_size = query.shape
    block_size = value_cache.shape[3]
    lens = seq_lens.long()
    max_len = int(lens.max()) if seqs else 0
    pos = torch.arange(max_len, device=query.device)
    blocks = block_tables.long()[:, pos // block_size]  # [S, L]
    offsets = (pos % block_size)[None, :].expand(seqs, max_len)
    k = key_cache[blocks, :, :, offsets, :]  # [S, L, Hkv, D/x, x]
    v = value_cache[blocks, :, :, offsets]  # [S, L, Hkv, D]
    if kv_cache_dtype.startswith("fp8"):
        k = k.view(torch.float8_e4m3fn).float() * k_scale.float()
        v = v.view(torch.float8_e4m3fn).float() * v_scale.float()
    k = k.reshape(seqs, max_len, num_kv_heads, head_size).float()
    v = v.float()
    group = heads // num_kv_heads
    # query head h reads kv head h // group: view the query heads as [S, Hkv, group, D]
    q = query.float().reshape(seqs, num_kv_heads, group, head_size)
    logits = torch.einsum("skgd,slkd->skgl", q, k).reshape(seqs, heads, max_len) * scale
    if alibi_slopes is not None:
        logits = logits + alibi_slopes.float()[None, :, None] * (pos[None, None, :] - lens[:, None, None] + 1)
    logits = logits.masked_fill(pos[None, None, :] >= lens[:, None, None], float("-inf"))
    probs = torch.softmax(logits, dim=-1).reshape(seqs, num_kv_heads, group, max_len)
    out.copy_(torch.einsum("skgl,slkd->skgd", probs, v).reshape(seqs, heads, head_size).to(out.dtype))


def paged_attention_v1(
    out: torch.Tensor,
    query: torch.Tensor,
    key_cache: torch.Tensor,
    value_cache: torch.Tensor,
    num_kv_heads: int,
    scale: float,
    block_tables: torch.Tensor,
    seq_lens: torch.Tensor,
    block_size: int,
    max_seq_len: int,
    alibi_slopes: torch.Tensor | None,
    kv_cache_dtype: str,
    k_scale: torch.Tensor,
    v_scale: torch.Tensor,
    tp_rank: int = 0,
    blocksparse_local_blocks: int = 0,
    blocksparse_vert_stride: int = 0,
    blocksparse_block_size: int = 64,
    blocksparse_head_sliding_step: int = 0,
) -> None:
    _paged_decode(
        out,
        query,
        key_cache,
        value_cache,
        num_kv_heads,
        scale,
        block_tables,
        seq_lens,
        alibi_slopes,
        kv_cache_dtype,
        k_scale,
        v_scale,
    )


def paged_attention_v2(
    out: torch.Tensor,
    exp_sum: torch.Tensor,
    max_logits: torch.Tensor,
    tmp_out: torch.Tensor,
    query: torch.Tensor,
    key_cache: torch.Tensor,
    value_cache: torch.Tensor,
    num_kv_heads: int,
    scale: float,
    block_tables: torch.Tensor,
    seq_lens: torch.Tensor,
    block_size: int,
    max_seq_len: int,
    alibi_slopes: torch.Tensor | None,
    kv_cache_dtype: str,
    k_scale: torch.Tensor,
    v_scale: torch.Tensor,
    tp_rank: int = 0,
    blocksparse_local_blocks: int = 0,
    blocksparse_vert_stride: int = 0,
    blocksparse_block_size: int = 64,
    blocksparse_head_sliding_step: int = 0,
) -> None:
    # exp_sum / max_logits / tmp_out are the partition scratch buffers; only `out` is the result
    _paged_decode(
        out,
        query,
        key_cache,
        value_cache,
        num_kv_heads,
        scale,
        block_tables,
        seq_lens,
        alibi_slopes,
        kv_cache_dtype,
        k_scale,
        v_scale,
    )


def _paged_inputs(case: dict[str, Any], rng: Rng, *, v2: bool) -> dict[str, Any]:
    seqs, heads, head_size, block_size = case["num_seqs"], case["num_heads"], case["head_size"], case["block_size"]
    kv_heads = max(1, heads // case["kv_divisor"])
    dtype = dt(case["dtype"])
    lens = [max(1, case["context_len"] - i % 3) for i in range(seqs)]
    max_len = max(lens)
    blocks_per_seq = (max_len + block_size - 1) // block_size
    num_blocks = seqs * blocks_per_seq + case.get("extra_blocks", 7)
    # each sequence owns distinct, scattered blocks (a real allocator hands out arbitrary free blocks)
    table = rng.randperm(num_blocks)[: seqs * blocks_per_seq].reshape(seqs, blocks_per_seq).to(torch.int32)
    x = 16 // dtype.itemsize
    dev = rng.device
    inputs: dict[str, Any] = {
        "out": torch.full((seqs, heads, head_size), float("nan"), dtype=dtype, device=dev),
        "query": rng.randn((seqs, heads, head_size), dtype),
        "key_cache": rng.randn((num_blocks, kv_heads, head_size // x, block_size, x), dtype),
        "value_cache": rng.randn((num_blocks, kv_heads, head_size, block_size), dtype),
        "num_kv_heads": kv_heads,
        "scale": 1.0 / math.sqrt(head_size),
        "block_tables": table,
        "seq_lens": torch.tensor(lens, dtype=torch.int32, device=dev),
        "block_size": block_size,
        "max_seq_len": max_len,
        "alibi_slopes": rng.uniform((heads,), 0.0, 0.5) if case.get("alibi") else None,
        "kv_cache_dtype": "auto",
        "k_scale": torch.ones(1, dtype=torch.float32, device=dev),
        "v_scale": torch.ones(1, dtype=torch.float32, device=dev),
        "tp_rank": 0,
        "blocksparse_local_blocks": 0,
        "blocksparse_vert_stride": 0,
        "blocksparse_block_size": 64,
        "blocksparse_head_sliding_step": 0,
    }
    if v2:
        parts = (max_len + V2_PARTITION_SIZE - 1) // V2_PARTITION_SIZE
        scratch = {
            "exp_sum": torch.zeros((seqs, heads, parts), dtype=torch.float32, device=dev),
            "max_logits": torch.zeros((seqs, heads, parts), dtype=torch.float32, device=dev),
            "tmp_out": torch.zeros((seqs, heads, parts, head_size), dtype=dtype, device=dev),
        }
        inputs = {"out": inputs.pop("out"), **scratch, **inputs}
    return inputs


def _attention_cost(case: dict[str, Any], inputs: dict[str, Any]) -> Cost:
    q = inputs["query"]
    tokens = float(inputs["seq_lens"].long().sum())
    heads, head_size = q.shape[1], q.shape[2]
    kv_bytes = 2.0 * tokens * inputs["num_kv_heads"] * head_size * q.element_size()
    return Cost(
        flops=4.0 * tokens * heads * head_size,
        bytes=kv_bytes + 2.0 * q.numel() * q.element_size(),
        dtype=str(q.dtype).removeprefix("torch."),
    )


PAGED_DESCRIPTION = (
    "Decode attention over vLLM's v0 paged KV cache: one query per sequence, query/out [S, Hq, D], "
    "key_cache [NB, Hkv, D/x, BS, x] (x = 16 bytes / element size), value_cache [NB, Hkv, D, BS], "
    "block_tables [S, max_blocks] int32, seq_lens [S] int32. Token j of sequence s lives in block "
    "block_tables[s, j // BS] at offset j % BS. out[s, h] = softmax_j(scale * q[s, h] . k[j, h // (Hq/Hkv)] "
    "(+ alibi_slopes[h] * (j - seq_len + 1))) @ v; fp32 softmax. kv_cache_dtype 'auto' (k_scale/v_scale unused)."
)

PAGED_V1 = vllm_spec(
    name="paged_attention_v1",
    category="attention",
    description=PAGED_DESCRIPTION,
    reference_impl=paged_attention_v1,
    make_inputs=lambda case, rng: _paged_inputs(case, rng, v2=False),
    cases={
        "smoke": [
            {
                "num_seqs": 2,
                "context_len": 20,
                "num_heads": 4,
                "head_size": 32,
                "kv_divisor": 2,
                "block_size": 8,
                "dtype": "float16",
            },
            {
                "num_seqs": 3,
                "context_len": 9,
                "num_heads": 2,
                "head_size": 64,
                "kv_divisor": 1,
                "block_size": 16,
                "dtype": "float16",
            },
        ],
        "full": product(
            num_seqs=[1, 4, 16, 71],
            context_len=[1, 33, 128, 512, 2048],
            num_heads=[8, 16],
            head_size=[64, 80, 128],
            kv_divisor=[1, 4],
            block_size=[16, 32],
            dtype=["float16", "bfloat16"],
        ),
        "edge": [
            {
                "num_seqs": 5,
                "context_len": 77,
                "num_heads": 8,
                "head_size": 128,
                "kv_divisor": 8,
                "block_size": 16,
                "dtype": "float16",
                "alibi": True,
            },
            {
                "num_seqs": 3,
                "context_len": 300,
                "num_heads": 40,
                "head_size": 256,
                "kv_divisor": 1,
                "block_size": 32,
                "dtype": "bfloat16",
            },
        ],
        "perf": [
            {
                "num_seqs": 64,
                "context_len": 2048,
                "num_heads": 32,
                "head_size": 128,
                "kv_divisor": 4,
                "block_size": 16,
                "dtype": "bfloat16",
            },
            {
                "num_seqs": 256,
                "context_len": 1024,
                "num_heads": 64,
                "head_size": 128,
                "kv_divisor": 8,
                "block_size": 16,
                "dtype": "float16",
            },
        ],
    },
    fidelity=(
        "vLLM tests/kernels/attention/test_attention.py ref_single_query_cached_kv_attention formulation (gather "
        "K/V through the block table, GQA head mapping h // (Hq/Hkv), ALiBi bias slope*(j - seq_len + 1), fp32 "
        "softmax) on vLLM's documented v0 cache layout. Upstream's test allocates [NB, BS, Hkv, D] caches (which "
        "vLLM then reinterprets); we keep its 960-case grid with the real layout and scattered block tables. Compared by "
        + at_upstream_rule(30, 30)
        + "."
    ),
    returns=False,
    mutates=("out",),
    checkers=(UPSTREAM,),
    cost=_attention_cost,
)

PAGED_V2 = vllm_spec(
    name="paged_attention_v2",
    category="attention",
    description=PAGED_DESCRIPTION
    + (
        " v2 splits each sequence into partitions of 512 tokens: exp_sum, max_logits [S, Hq, P] fp32 and tmp_out "
        "[S, Hq, P, D] are scratch buffers for the partial results (P = ceil(max_seq_len / 512)); only `out` is "
        "checked."
    ),
    reference_impl=paged_attention_v2,
    make_inputs=lambda case, rng: _paged_inputs(case, rng, v2=True),
    cases={
        "smoke": [
            {
                "num_seqs": 2,
                "context_len": 20,
                "num_heads": 4,
                "head_size": 32,
                "kv_divisor": 2,
                "block_size": 8,
                "dtype": "float16",
            },
            {
                "num_seqs": 2,
                "context_len": 530,
                "num_heads": 2,
                "head_size": 32,
                "kv_divisor": 1,
                "block_size": 16,
                "dtype": "float16",
            },
        ],
        "full": [
            {
                "num_seqs": s,
                "num_heads": h,
                "kv_divisor": h // kv,
                "head_size": d,
                "block_size": bs,
                "context_len": ctx,
                "dtype": dtype,
            }
            for (s, h, kv, d, bs, _nb, ctx) in [
                (2, 8, 8, 64, 16, 32, 128),
                (4, 8, 8, 64, 16, 64, 256),
                (4, 32, 8, 128, 16, 128, 512),
                (8, 16, 8, 128, 16, 256, 1024),
            ]
            for dtype in ("float16", "bfloat16")
        ],
        "edge": [
            {
                "num_seqs": 3,
                "context_len": 1537,
                "num_heads": 8,
                "head_size": 80,
                "kv_divisor": 4,
                "block_size": 32,
                "dtype": "float16",
                "alibi": True,
            },
        ],
        "perf": [
            {
                "num_seqs": 32,
                "context_len": 8192,
                "num_heads": 32,
                "head_size": 128,
                "kv_divisor": 4,
                "block_size": 16,
                "dtype": "bfloat16",
            },
        ],
    },
    fidelity=(
        "Same reference as paged_attention_v1 (v2 only changes the partitioned execution; vLLM's test compares "
        "`out` only, as does upstream). Upstream's 8 configs (random seq_lens up to max_seq_len there; we use "
        "context_len - i%3) with vLLM's cache layout; " + at_upstream_rule(0, 16) + "."
    ),
    returns=False,
    mutates=("out", "exp_sum", "max_logits", "tmp_out"),
    checkers=(UPSTREAM, ignore, ignore, ignore),
    cost=_attention_cost,
)


# ---------------------------------------------------------------- merge_attn_states


def merge_attn_states(
    output: torch.Tensor,
    prefix_output: torch.Tensor,
    prefix_lse: torch.Tensor,
    suffix_output: torch.Tensor,
    suffix_lse: torch.Tensor,
    output_lse: torch.Tensor | None = None,
) -> None:
    # LSEs are [H, T]; +inf marks an empty partition and counts as -inf
    p = prefix_lse.float().masked_fill(torch.isposinf(prefix_lse), float("-inf"))
    s = suffix_lse.float().masked_fill(torch.isposinf(suffix_lse), float("-inf"))
    m = torch.maximum(p, s)
    wp, ws = torch.exp(p - m), torch.exp(s - m)
    total = wp + ws
    a = (wp / total).t()[:, :, None]  # [T, H, 1]
    b = (ws / total).t()[:, :, None]
    output.copy_((prefix_output.float() * a + suffix_output.float() * b).to(output.dtype))
    if output_lse is not None:
        output_lse.copy_(torch.log(total) + m)


def _merge_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    tokens, heads, head_dim = case["shape"]
    dtype = dt(case["dtype"])
    prefix_lse = rng.uniform((heads, tokens), -2.0, 2.0)
    suffix_lse = rng.uniform((heads, tokens), -2.0, 2.0)
    if case.get("empty_partitions"):
        prefix_lse[0, ::3] = float("inf")
        suffix_lse[-1, 1::4] = float("inf")
    dev = rng.device
    return {
        "output": torch.full((tokens, heads, head_dim), float("nan"), dtype=dtype, device=dev),
        "prefix_output": rng.randn((tokens, heads, head_dim), dtype),
        "prefix_lse": prefix_lse,
        "suffix_output": rng.randn((tokens, heads, head_dim), dtype),
        "suffix_lse": suffix_lse,
        "output_lse": (
            torch.full((heads, tokens), float("nan"), dtype=torch.float32, device=dev) if case.get("with_lse") else None
        ),
    }


MERGE_ATTN_STATES = vllm_spec(
    name="merge_attn_states",
    category="attention",
    description=(
        "Merge two partial attention results (e.g. prefix and suffix of the context) with their log-sum-exps: "
        "outputs [T, H, D], LSEs [H, T] fp32 (an LSE of +inf counts as -inf, an empty part). m = max(lp, ls); "
        "wp = exp(lp - m), ws = exp(ls - m); output = (P*wp + S*ws) / (wp + ws); output_lse (optional, [H, T]) = "
        "log(wp + ws) + m."
    ),
    reference_impl=merge_attn_states,
    make_inputs=_merge_inputs,
    cases={
        "smoke": [
            {"shape": [3, 2, 16], "dtype": "float32", "with_lse": True},
            {"shape": [4, 3, 32], "dtype": "float16"},
        ],
        "full": product(
            shape=[(1, 8, 64), (4, 8, 64), (4, 32, 128), (16, 8, 128), (16, 32, 64), (64, 32, 128)],
            dtype=["float16", "bfloat16", "float32"],
        ),
        "edge": [{"shape": [13, 5, 80], "dtype": "float16", "with_lse": True, "empty_partitions": True}],
        "perf": [
            {"shape": [4096, 32, 128], "dtype": "bfloat16", "with_lse": True},
            {"shape": [16384, 8, 128], "dtype": "float16"},
        ],
    },
    fidelity=(
        "vLLM csrc/attention/merge_attn_states.cu and vllm/v1/attention/ops/triton_merge_attn_states.py semantics "
        "(+inf LSE -> -inf, max-shifted weights) as tests/kernels/attention/test_merge_attn_states.py's torch "
        "reference. Upstream grid (18; upstream passes [T, H] LSEs, vLLM's layout is [H, T]); the output by "
        + at_upstream_rule(36, 36)
        + "; output_lse (which upstream's test does not ask for) at atol=rtol=1e-5."
    ),
    returns=False,
    mutates=("output", "output_lse"),
    checkers=(UPSTREAM, close(1e-5, 1e-5)),
    cost=None,
)


# ---------------------------------------------------------------- convert_vertical_slash_indexes


def _vs_row(
    vertical: list[int],
    slash: list[int],
    start_m: int,
    end_m: int,
    shift: int,
    kv_len: int,
    block_m: int,
    block_n: int,
    causal: bool,
) -> tuple[list[int], list[int]]:
    """One query block's sparse pattern, following vLLM's vertical_slash_index.cu walk: merge the
    diagonal (slash) bands into key-block ranges of width block_n and keep the vertical columns that fall
    outside those ranges. shift = kv_len - q_len (causal) or kv_len (non-causal)."""
    blocks: list[int] = []
    columns: list[int] = []

    def save(lo: int, hi: int) -> None:
        if lo >= kv_len:
            return
        blocks.extend(range(lo, min(hi, kv_len), block_n))

    def band_end(diag: int) -> int:
        return max(shift + end_m - diag, block_m)

    nv, ns = len(vertical), len(slash)
    v, s = 1, 1
    v_idx, s_idx = vertical[0], slash[0]
    while s_idx >= end_m + shift and s < ns:
        s_idx = slash[s]
        s += 1
    has_slash = s_idx <= end_m + shift
    s_idx = band_end(s_idx)
    lo, hi = s_idx - block_m, s_idx
    if not has_slash:
        lo, hi = (shift + end_m, shift + end_m + block_n) if causal else (kv_len, kv_len + block_n)
    sentinel = end_m + block_n + shift
    finished = False
    while True:
        if v_idx < hi:
            if v_idx < lo:
                columns.append(v_idx)
            if v < nv:
                v_idx = vertical[v]
                v += 1
            elif sentinel < hi:
                # a range widened by block_m past the sentinel (block_m > block_n): vLLM's kernel spins here
                raise ValueError("vertical/slash pattern on which vLLM's kernel never terminates")
            else:
                v_idx = sentinel
            continue
        if s < ns and (causal or slash[s] >= start_m):
            s_idx = band_end(slash[s])
            s += 1
        elif v == nv or (v_idx > lo and causal):
            if v == nv and not causal and v_idx < kv_len:
                columns.append(v_idx)
            save(lo, hi)
            break
        else:
            if causal:
                lo, hi = shift + end_m, shift + end_m + block_n
            else:
                save(lo, hi)
                lo, hi = kv_len, kv_len + block_n
            finished = True
        if not finished:
            if s_idx > hi + block_m:
                save(lo, hi)
                lo, hi = s_idx - block_m, s_idx
            elif s_idx > hi:
                hi += block_m
    return blocks, columns


def convert_vertical_slash_indexes(
    q_seqlens: torch.Tensor,
    kv_seqlens: torch.Tensor,
    vertical_indexes: torch.Tensor,
    slash_indexes: torch.Tensor,
    context_size: int,
    block_size_M: int,
    block_size_N: int,
    causal: bool = True,
) -> tuple:
    batch, heads, nnz_s = slash_indexes.shape
    nnz_v = vertical_indexes.shape[2]
    rows = (context_size + block_size_M - 1) // block_size_M
    dev, idt = q_seqlens.device, q_seqlens.dtype
    block_count = torch.zeros((batch, heads, rows), dtype=idt)
    block_offset = torch.zeros((batch, heads, rows, nnz_s), dtype=idt)
    column_count = torch.zeros((batch, heads, rows), dtype=idt)
    column_index = torch.zeros((batch, heads, rows, nnz_v), dtype=idt)
    q_lens, kv_lens = q_seqlens.tolist(), kv_seqlens.tolist()
    vert, sl = vertical_indexes.cpu().tolist(), slash_indexes.cpu().tolist()
    for b in range(batch):
        shift = kv_lens[b] - q_lens[b] if causal else kv_lens[b]
        for h in range(heads):
            for r in range(rows):
                start_m = r * block_size_M
                if start_m >= q_lens[b]:
                    continue
                blocks, columns = _vs_row(
                    vert[b][h],
                    sl[b][h],
                    start_m,
                    start_m + block_size_M,
                    shift,
                    kv_lens[b],
                    block_size_M,
                    block_size_N,
                    causal,
                )
                if len(blocks) > nnz_s or len(columns) > nnz_v:
                    raise ValueError(
                        "vertical/slash pattern overflows the output capacity (vLLM would write "
                        "past the row); pad slash_indexes with skipped entries"
                    )
                block_count[b, h, r] = len(blocks)
                column_count[b, h, r] = len(columns)
                block_offset[b, h, r, : len(blocks)] = torch.tensor(blocks, dtype=idt)
                column_index[b, h, r, : len(columns)] = torch.tensor(columns, dtype=idt)
    return tuple(t.to(dev) for t in (block_count, block_offset, column_count, column_index))


def _vs_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    batch, q_len, kv_len, block_m, block_n = case["config"]
    heads, n_v, n_s = case.get("heads", 2), case["nnz_v"], case["nnz_s"]
    dev = rng.device
    # MInference's convention: vertical columns ascending, slash diagonals descending (distinct).
    vertical = torch.stack(
        [torch.stack([torch.sort(rng.randperm(kv_len)[:n_v]).values for _ in range(heads)]) for _ in range(batch)]
    )
    real = torch.stack(
        [
            torch.stack([torch.sort(rng.randperm(kv_len)[:n_s], descending=True).values for _ in range(heads)])
            for _ in range(batch)
        ]
    )
    # leading entries beyond every row's reach are skipped by the walk but give block_offset room
    # (each real diagonal can open up to two key blocks)
    pad_count = n_s + kv_len // block_n + 2
    pad = torch.arange(kv_len + q_len + pad_count, kv_len + q_len, -1, device=dev)[:pad_count]
    slash = torch.cat([pad.expand(batch, heads, pad_count), real.to(dev)], dim=-1)
    return {
        "q_seqlens": torch.full((batch,), q_len, dtype=torch.int32, device=dev),
        "kv_seqlens": torch.full((batch,), kv_len, dtype=torch.int32, device=dev),
        "vertical_indexes": vertical.to(torch.int32).to(dev),
        "slash_indexes": slash.to(torch.int32),
        "context_size": q_len,
        "block_size_M": block_m,
        "block_size_N": block_n,
        "causal": case.get("causal", True),
    }


CONVERT_VERTICAL_SLASH_INDEXES = vllm_spec(
    name="convert_vertical_slash_indexes",
    category="attention",
    description=(
        "MInference vertical-slash sparse attention index conversion. Per (batch, head, query block of "
        "block_size_M rows): walk the ascending vertical column indexes and descending slash (diagonal) indexes, "
        "turn the diagonals into key-block ranges of block_size_N (bottom-right causal alignment, shift = "
        "kv_len - q_len; causal=False uses shift = kv_len) and keep the vertical columns not covered by a range. Returns (block_count [B, H, R], "
        "block_offset [B, H, R, NNZ_S], column_count [B, H, R], column_index [B, H, R, NNZ_V]) int32, "
        "R = ceil(context_size / block_size_M), unused entries 0."
    ),
    reference_impl=convert_vertical_slash_indexes,
    make_inputs=_vs_inputs,
    cases={
        "smoke": [
            {"config": [1, 8, 16, 4, 4], "nnz_v": 3, "nnz_s": 2},
            {"config": [2, 16, 24, 8, 8], "nnz_v": 4, "nnz_s": 3, "heads": 1},
        ],
        "full": [
            {"config": list(c), "nnz_v": max(1, c[2] // 4), "nnz_s": max(1, c[2] // 8)}
            for c in [
                (2, 4, 8, 4, 4),
                (4, 8, 16, 4, 4),
                (2, 8, 16, 8, 8),
                (4, 16, 32, 8, 8),
                (2, 4, 16, 4, 4),
                (4, 16, 32, 8, 8),
                (4, 32, 64, 8, 8),
                (8, 16, 32, 8, 8),
                (8, 32, 64, 16, 16),
                (8, 32, 64, 8, 8),
                (8, 64, 128, 8, 8),
                (16, 32, 64, 8, 8),
                (16, 64, 128, 16, 16),
            ]
        ],
        "edge": [
            # block_N > block_M (block_M > block_N can make vLLM's kernel spin: see fidelity)
            {"config": [1, 40, 100, 8, 16], "nnz_v": 7, "nnz_s": 5, "heads": 3},
            # the non-causal ("succ" stage of vLLM's dual-chunk attention) path of the same walk
            {"config": [2, 24, 40, 8, 8], "nnz_v": 6, "nnz_s": 4, "causal": False},
        ],
        "perf": [{"config": [1, 4096, 4096, 64, 64], "nnz_v": 1000, "nnz_s": 600, "heads": 8}],
    },
    fidelity=(
        "Python port of convert_vertical_slash_indexes_kernel in vLLM csrc/attention/vertical_slash_index.cu "
        "(vllm-project/vllm @161944b3; the v0.13.x tag could not be fetched, the index holds one version of the "
        "file), compared with it branch by branch for both the causal and the non-causal path (shift kv-q vs kv, "
        "the start_m test on the next slash, the extra last vertical and the early save when non-causal), and "
        "the outputs as vllm/_custom_ops.py allocates them (int32 zeros of the q_seqlens dtype, rows "
        "ceil(context_size / block_size_M), rows starting at or past q_len left 0). The kernel has no bound "
        "checks: a row needing more than NNZ_S blocks writes into the next row, and with block_size_M > "
        "block_size_N a range widened by block_size_M can pass the exhausted-vertical sentinel so the kernel "
        "never terminates; the reference raises ValueError on both instead, and our inputs avoid them "
        "(MInference/vLLM dual-chunk convention: vertical ascending, slash descending, leading slash entries "
        "past every row as capacity; edge cases use block_size_N >= block_size_M). Unsorted indexes take the "
        "same walk as the kernel (no sorting is assumed); negative slash entries can also hang the kernel. vLLM "
        "has no unit test for this op; tests/operators/test_vllm13_layouts.py checks the reference against the "
        "sparse mask it must encode (every (query, key) cell on a reached diagonal lies in a returned block, every "
        "vertical left of the causal edge is in a block or listed, offsets/columns ascending, unused entries 0) "
        "on 60 random problems and a hand-worked row. Not run against the CUDA kernel. Upstream grid (13); "
        "exact comparison."
    ),
    returns=True,
    checkers=(exact, exact, exact, exact),
)

SPECS = [PAGED_V1, PAGED_V2, MERGE_ATTN_STATES, CONVERT_VERTICAL_SLASH_INDEXES]
