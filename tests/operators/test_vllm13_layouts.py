"""Independent formulations of the vLLM 0.13 layout/index operators whose references were once
provisional: each test recomputes the operator a second way (brute force, exact arithmetic) and
compares it with the catalog reference over every tier's inputs plus random ones."""

from __future__ import annotations

from fractions import Fraction

import pytest
import torch

from operators import registry
from operators.catalog.vllm13.attention import convert_vertical_slash_indexes
from operators.catalog.vllm13.quant import cutlass_pack_scale_fp8, every_finite_e4m3
from operators.spec import Rng

SPECS = {s.name: s for s in registry.all_specs("vllm13")}


def _all_cases(name: str) -> list[dict]:
    spec = SPECS[name]
    return [case for tier in ("smoke", "full", "edge") for case in spec.tier(tier)]


# ---------------------------------------------------------------- cutlass_pack_scale_fp8


def _e4m3_value(code: int) -> Fraction:
    """Exact value of a finite e4m3fn byte (bias 7, 3 mantissa bits, subnormals below 2^-6)."""
    sign = -1 if code & 0x80 else 1
    exponent, mantissa = (code >> 3) & 0xF, code & 0x7
    if exponent == 0:
        return sign * Fraction(mantissa, 8) * Fraction(1, 64)
    return sign * (1 + Fraction(mantissa, 8)) * Fraction(2) ** (exponent - 7)


# the non-negative finite grid, ordered by value; the mantissa's low bit is the code's low bit
_GRID = sorted(((code, _e4m3_value(code)) for code in range(0x7F)), key=lambda cv: cv[1])


def _nearest_e4m3_byte(target: Fraction, negative: bool) -> int:
    """Round to nearest, ties to the even code, saturate at 448: CUTLASS's host float -> e4m3 rule."""
    magnitude = abs(target)
    best_code, best_value = _GRID[-1]
    if magnitude < best_value:
        best_code, best_value = min(
            _GRID, key=lambda cv: (abs(cv[1] - magnitude), cv[0] & 1)
        )  # a tie prefers the even code
    return best_code | (0x80 if negative else 0)


def _packed_bytes_of(code: int) -> list[int]:
    value, negative_scale = _e4m3_value(code), bool(code & 0x80)
    # s*-8 first, -s last; the product's sign is the opposite of the scale's (also for zeros: -0.0 * -k = +0.0)
    return [_nearest_e4m3_byte(value * -k, negative=not negative_scale) for k in range(8, 0, -1)]


_PACKED_BYTES = {code: _packed_bytes_of(code) for code in range(256) if code & 0x7F != 0x7F}


def _packed_bytes_brute_force(scales: torch.Tensor) -> torch.Tensor:
    codes = scales.reshape(-1).view(torch.uint8).tolist()
    return torch.tensor([b for code in codes for b in _PACKED_BYTES[code]], dtype=torch.uint8)


def test_pack_scale_matches_exact_rounding_over_every_finite_e4m3() -> None:
    scales = every_finite_e4m3()
    assert scales.numel() == 254
    got = cutlass_pack_scale_fp8(scales).view(torch.uint8)
    assert torch.equal(got, _packed_bytes_brute_force(scales))
    # spot values: 1.0 -> (-8, ..., -1); 448 saturates to -448 everywhere
    one = cutlass_pack_scale_fp8(torch.tensor([1.0]).to(torch.float8_e4m3fn)).float()
    assert one.tolist() == [-8.0, -7.0, -6.0, -5.0, -4.0, -3.0, -2.0, -1.0]
    top = cutlass_pack_scale_fp8(torch.tensor([448.0]).to(torch.float8_e4m3fn)).float()
    assert top.tolist() == [-448.0] * 8


@pytest.mark.parametrize("seed", [0, 1])
def test_pack_scale_every_tier_matches_brute_force(seed: int) -> None:
    spec = SPECS["cutlass_pack_scale_fp8"]
    for case in _all_cases("cutlass_pack_scale_fp8"):
        scales = spec.make_inputs(case, Rng(seed))["scales"]
        got = spec.run_reference(spec.make_inputs(case, Rng(seed)))
        assert got.shape == (8 * scales.numel(),) and got.dtype == torch.float8_e4m3fn
        assert torch.equal(got.view(torch.uint8), _packed_bytes_brute_force(scales)), case


# ---------------------------------------------------------------- moe_lora_align_block_size


def _lora_align_brute_force(inputs: dict) -> tuple[list[int], list[int], list[int]]:
    """Plain loops: for each written LoRA slot, for each expert in order, its slots in ascending order,
    padded with the sentinel to a multiple of block_size; blocks past the end are -1."""
    topk_ids = inputs["topk_ids"].tolist()
    mapping = inputs["token_lora_mapping"].tolist()
    experts, bs, loras = inputs["num_experts"], inputs["block_size"], inputs["max_loras"]
    pad, blocks = inputs["max_num_tokens_padded"], inputs["max_num_m_blocks"]
    sorted_ids = inputs["sorted_token_ids"].tolist()
    expert_ids = inputs["experts_ids"].tolist()
    post_pad = inputs["num_tokens_post_pad"].tolist()
    topk = len(topk_ids[0])
    numel = len(topk_ids) * topk
    enabled = inputs["adapter_enabled"].tolist()
    for lora in inputs["lora_ids"].tolist()[:loras]:
        if lora == -1 or not enabled[lora]:
            continue
        ids: list[int] = []
        owners: list[int] = []
        for expert in range(experts):
            slots = [s for s in range(numel) if topk_ids[s // topk][s % topk] == expert and mapping[s // topk] == lora]
            padded = -(-len(slots) // bs) * bs
            ids += slots + [numel] * (padded - len(slots))
            owners += [expert] * (padded // bs)
        sorted_ids[lora * pad : (lora + 1) * pad] = ids + [numel] * (pad - len(ids))
        expert_ids[lora * blocks : (lora + 1) * blocks] = owners + [-1] * (blocks - len(owners))
        post_pad[lora] = len(ids)
    return sorted_ids, expert_ids, post_pad


def _vllm_test_oracle(inputs: dict, out: tuple) -> None:
    """vLLM tests/lora/test_moe_lora_align_sum.py: every non-sentinel id in block b routes to expert_ids[b]
    (here also: belongs to a token of that LoRA, and every such slot appears exactly once)."""
    flat = inputs["topk_ids"].reshape(-1)
    topk = inputs["topk_ids"].shape[1]
    pad, blocks, bs = inputs["max_num_tokens_padded"], inputs["max_num_m_blocks"], inputs["block_size"]
    enabled = inputs["adapter_enabled"].tolist()
    for lora in inputs["lora_ids"].tolist()[: inputs["max_loras"]]:
        if lora == -1 or not enabled[lora]:
            continue
        seg = out[0][lora * pad : lora * pad + blocks * bs].view(blocks, bs)  # whole blocks only
        owners = out[1][lora * blocks : (lora + 1) * blocks]
        seen = []
        for b in range(seg.shape[0]):
            ids = seg[b][seg[b] != flat.numel()].long()
            if ids.numel():
                assert torch.all(flat[ids] == owners[b])
                assert torch.all(inputs["token_lora_mapping"][ids // topk] == lora)
                seen += ids.tolist()
        mine = (inputs["token_lora_mapping"].repeat_interleave(topk) == lora).nonzero().flatten().tolist()
        assert sorted(seen) == mine


def _random_lora_case(rng: torch.Generator) -> dict:
    tokens = int(torch.randint(1, 80, (1,), generator=rng))
    topk = int(torch.randint(1, 5, (1,), generator=rng))
    experts = int(torch.randint(max(topk, 2), 20, (1,), generator=rng))
    bs = [1, 2, 4, 8, 16][int(torch.randint(0, 5, (1,), generator=rng))]
    loras = int(torch.randint(1, 5, (1,), generator=rng))
    enabled = (torch.rand(loras + 1, generator=rng) < 0.7).int().tolist()
    ids = [i if float(torch.rand(1, generator=rng)) < 0.8 else -1 for i in torch.randperm(loras, generator=rng)]
    return {"config": [tokens, topk, experts, bs, loras], "lora_ids": [int(i) for i in ids], "adapter_enabled": enabled}


def _lora_cases() -> list[dict]:
    rng = torch.Generator().manual_seed(5)
    return _all_cases("moe_lora_align_block_size") + [_random_lora_case(rng) for _ in range(12)]


@pytest.mark.parametrize("seed", [0, 1])
def test_moe_lora_align_matches_brute_force_and_vllms_oracle(seed: int) -> None:
    spec = SPECS["moe_lora_align_block_size"]
    for case in _lora_cases():
        inputs = spec.make_inputs(case, Rng(seed))
        expected = _lora_align_brute_force(spec.make_inputs(case, Rng(seed)))
        out = spec.run_reference(inputs)
        # the reference keeps ascending slot order inside a run, so it equals the brute force exactly
        assert [t.tolist() for t in out] == list(expected), case
        _vllm_test_oracle(spec.make_inputs(case, Rng(seed)), out)
        assert spec.compare(out, out, case, spec.make_inputs(case, Rng(seed))).passed


def test_moe_lora_compare_accepts_reordered_runs_and_rejects_wrong_owners() -> None:
    spec = SPECS["moe_lora_align_block_size"]
    case = {"config": [20, 2, 4, 4, 2]}
    inputs = spec.make_inputs(case, Rng(3))
    ref = spec.run_reference(spec.make_inputs(case, Rng(3)))
    pad, total = inputs["max_num_tokens_padded"], int(ref[2][0])
    shuffled = ref[0].clone()
    first_run = int((ref[1][: total // 4] == ref[1][0]).sum()) * 4  # lora 0, expert of block 0
    shuffled[:first_run] = shuffled[:first_run].flip(0)
    assert spec.compare((shuffled, ref[1], ref[2]), ref, case, inputs).passed
    wrong_tail = ref[1].clone()
    wrong_tail[inputs["max_num_m_blocks"] - 1] = 0  # an unused block of slot 0 must stay -1
    assert not spec.compare((ref[0], wrong_tail, ref[2]), ref, case, inputs).passed
    moved = ref[0].clone()
    moved[[0, pad - 1]] = moved[[pad - 1, 0]]  # a token pushed into the sentinel tail
    assert not spec.compare((moved, ref[1], ref[2]), ref, case, inputs).passed


# ---------------------------------------------------------------- convert_vertical_slash_indexes


def _vs_random_inputs(gen: torch.Generator) -> dict:
    """MInference's convention (vertical ascending, slash descending, distinct, in range) with the main
    diagonal 0 among the slashes, plus leading never-reached slashes as block_offset capacity."""
    q_len = int(torch.randint(1, 60, (1,), generator=gen))
    kv_len = q_len + int(torch.randint(0, 40, (1,), generator=gen))
    block_m = [4, 8, 16][int(torch.randint(0, 3, (1,), generator=gen))]
    # block_n >= block_m: with block_m > block_n vLLM's walk can widen a range past its sentinel and spin
    block_n = block_m * [1, 2][int(torch.randint(0, 2, (1,), generator=gen))]
    n_v = int(torch.randint(1, kv_len + 1, (1,), generator=gen))
    n_s = int(torch.randint(1, kv_len + 1, (1,), generator=gen))
    vertical = torch.sort(torch.randperm(kv_len, generator=gen)[:n_v]).values
    diagonals = torch.cat([torch.zeros(1, dtype=torch.long), 1 + torch.randperm(kv_len, generator=gen)[: n_s - 1]])
    diagonals = diagonals[diagonals < kv_len].unique().flip(0)
    capacity = 2 * diagonals.numel() + kv_len // block_n + 2
    pad = torch.arange(kv_len + q_len + block_m + capacity, kv_len + q_len + block_m, -1)[:capacity]
    slash = torch.cat([pad, diagonals])
    return {
        "q_seqlens": torch.tensor([q_len], dtype=torch.int32),
        "kv_seqlens": torch.tensor([kv_len], dtype=torch.int32),
        "vertical_indexes": vertical.to(torch.int32).view(1, 1, -1),
        "slash_indexes": slash.to(torch.int32).view(1, 1, -1),
        "context_size": q_len,
        "block_size_M": block_m,
        "block_size_N": block_n,
        "causal": True,
    }


def _check_vs_structure(inputs: dict, out: tuple) -> None:
    """Layout facts of vLLM's kernel: counts in range, offsets/columns ascending and in the row's lists,
    zeros in unused entries and in rows that start past q_len."""
    block_count, block_offset, column_count, column_index = out
    m = inputs["block_size_M"]
    for b in range(block_count.shape[0]):
        q_len, kv_len = int(inputs["q_seqlens"][b]), int(inputs["kv_seqlens"][b])
        for h in range(block_count.shape[1]):
            verticals = set(inputs["vertical_indexes"][b, h].tolist())
            for r in range(block_count.shape[2]):
                nb, nc = int(block_count[b, h, r]), int(column_count[b, h, r])
                offsets, columns = block_offset[b, h, r].tolist(), column_index[b, h, r].tolist()
                assert not any(offsets[nb:]) and not any(columns[nc:])
                if r * m >= q_len:
                    assert nb == 0 and nc == 0
                assert offsets[:nb] == sorted(set(offsets[:nb])) and all(0 <= o < kv_len for o in offsets[:nb])
                assert columns[:nc] == sorted(set(columns[:nc])) and set(columns[:nc]) <= verticals


def _check_vs_causal_coverage(inputs: dict, out: tuple) -> None:
    """The sparse mask the attention needs is covered: every (query, key) cell on a slash diagonal the
    row block reaches lies in a returned key block, and every vertical column left of the row block's
    causal edge is in a returned block or listed as a column."""
    block_count, block_offset, column_count, column_index = out
    m, n = inputs["block_size_M"], inputs["block_size_N"]
    q_len, kv_len = int(inputs["q_seqlens"][0]), int(inputs["kv_seqlens"][0])
    shift = kv_len - q_len
    slash, vertical = inputs["slash_indexes"][0, 0].tolist(), inputs["vertical_indexes"][0, 0].tolist()
    for r in range(block_count.shape[2]):
        start_m, end_m = r * m, r * m + m
        if start_m >= q_len:
            continue
        offsets = block_offset[0, 0, r, : int(block_count[0, 0, r])].tolist()
        columns = set(column_index[0, 0, r, : int(column_count[0, 0, r])].tolist())

        def in_block(key: int, offsets: list[int] = offsets) -> bool:
            return any(o <= key < o + n for o in offsets)

        for d in slash:
            if d >= end_m + shift:
                continue  # past the row block's diagonal: never opened by the walk
            for i in range(start_m, min(end_m, q_len)):
                key = i + shift - d
                if 0 <= key < kv_len:
                    assert in_block(key), (r, d, i, key)
        for v in vertical:
            if v < min(kv_len, shift + end_m):
                assert v in columns or in_block(v), (r, v)


def test_vertical_slash_reference_covers_the_sparse_mask() -> None:
    gen = torch.Generator().manual_seed(11)
    for _ in range(60):
        inputs = _vs_random_inputs(gen)
        out = convert_vertical_slash_indexes(**inputs)
        _check_vs_structure(inputs, out)
        _check_vs_causal_coverage(inputs, out)


@pytest.mark.parametrize("seed", [0, 1])
def test_vertical_slash_every_tier_keeps_vllms_layout(seed: int) -> None:
    spec = SPECS["convert_vertical_slash_indexes"]
    for case in _all_cases("convert_vertical_slash_indexes"):
        inputs = spec.make_inputs(case, Rng(seed))
        out = spec.run_reference(spec.make_inputs(case, Rng(seed)))
        assert all(t.dtype == torch.int32 for t in out)
        _check_vs_structure(inputs, out)


def test_vertical_slash_hand_worked_row() -> None:
    # q = kv = 8, M = N = 4, causal; slashes 0 and 4 (descending), verticals 1 and 6.
    # row 0 (queries 0-3): only diagonal 0 reaches it -> band [0, 4) -> one block at 0; column 1 is inside it.
    # row 1 (queries 4-7): diagonal 4 -> band [0, 4), diagonal 0 -> band end 8 = hi + M -> merged [0, 8):
    # blocks at 0 and 4; both verticals are inside, so no columns.
    inputs = {
        "q_seqlens": torch.tensor([8], dtype=torch.int32),
        "kv_seqlens": torch.tensor([8], dtype=torch.int32),
        "vertical_indexes": torch.tensor([[[1, 6]]], dtype=torch.int32),
        "slash_indexes": torch.tensor([[[4, 0]]], dtype=torch.int32),
        "context_size": 8,
        "block_size_M": 4,
        "block_size_N": 4,
        "causal": True,
    }
    block_count, block_offset, column_count, column_index = convert_vertical_slash_indexes(**inputs)
    assert block_count.tolist() == [[[1, 2]]]
    assert block_offset.tolist() == [[[[0, 0], [0, 4]]]]
    assert column_count.tolist() == [[[0, 0]]]


def test_vertical_slash_refuses_the_input_on_which_vllm_spins() -> None:
    # block_m 16 > block_n 8: row 1's range grows to 48 past the exhausted-vertical sentinel 45
    inputs = {
        "q_seqlens": torch.tensor([31], dtype=torch.int32),
        "kv_seqlens": torch.tensor([36], dtype=torch.int32),
        "vertical_indexes": torch.tensor([[[2, 13, 16, 31, 34]]], dtype=torch.int32),
        "slash_indexes": torch.tensor([[[30, 25, 21, 18, 16, 15, 8, 6, 4, 3, 1, 0]]], dtype=torch.int32),
        "context_size": 31,
        "block_size_M": 16,
        "block_size_N": 8,
        "causal": True,
    }
    with pytest.raises(ValueError, match="never terminates"):
        convert_vertical_slash_indexes(**inputs)
