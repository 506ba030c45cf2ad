"""The vLLM 0.13 catalog: the 50 upstream contracts, upstream's case grids, references checked against
independent formulations, and the Triton reference solutions on the smoke tier (CPU interpreter)."""

from __future__ import annotations

import ast
import inspect
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from operators import registry
from operators.catalog.vllm13._bits import pack_last, unpack_last
from operators.catalog.vllm13._signatures import SIGNATURES
from operators.catalog.vllm13.attention import merge_attn_states, paged_attention_v1
from operators.catalog.vllm13.cache import reshape_and_cache
from operators.catalog.vllm13.moe import grouped_topk, topk_softmax
from operators.catalog.vllm13.norm import rope_cache, rotary_embedding
from operators.catalog.vllm13.qgemm import (
    AWQ_NIBBLE_OF_COLUMN,
    GGML_Q4_0,
    GGML_Q8_0,
    awq_gemm,
    ggml_dequantize_rows,
    ggml_quantize,
)
from operators.catalog.vllm13.quant import hadacore_transform, scaled_fp8_quant, scaled_int8_quant
from operators.catalog.vllm13.repack import gptq_shuffle
from operators.spec import Rng

REPO = Path(__file__).resolve().parents[2]

# research/upstream_kgb.md §1.2
UPSTREAM_NAMES = set(
    """
allspark_w8a16_gemm awq_gemm gptq_gemm gptq_marlin_24_gemm gptq_marlin_gemm cutlass_scaled_mm cutlass_scaled_mm_azp
cutlass_pack_scale_fp8 ggml_dequantize ggml_mul_mat_a8 ggml_mul_mat_vec_a8 ggml_moe_a8 ggml_moe_a8_vec
awq_marlin_moe_repack gptq_marlin_moe_repack gptq_shuffle marlin_int4_fp8_preprocess permute_cols shuffle_rows
moe_align_block_size batched_moe_align_block_size moe_lora_align_block_size moe_sum topk_softmax grouped_topk
paged_attention_v1 paged_attention_v2 merge_attn_states convert_vertical_slash_indexes reshape_and_cache
reshape_and_cache_flash concat_and_cache_mla copy_blocks copy_blocks_mla swap_blocks cp_gather_cache
cp_gather_indexer_k_quant_cache gather_and_maybe_dequant_cache convert_fp8 rms_norm fused_add_rms_norm
rms_norm_dynamic_per_token_quant rms_norm_per_block_quant scaled_fp8_quant scaled_int8_quant rotary_embedding
fused_qk_norm_rope hadacore_transform apply_repetition_penalties_cuda selective_scan_fwd
""".split()
)

# research/upstream_kgb.md §2, vLLM case counts; scaled_int8_quant drops upstream's 15 invalid combinations
# (static asymmetric without azp), which upstream counts but skips
UPSTREAM_FULL_COUNTS = {
    "allspark_w8a16_gemm": 13,
    "apply_repetition_penalties_cuda": 10,
    "awq_gemm": 8,
    "awq_marlin_moe_repack": 10,
    "batched_moe_align_block_size": 9,
    "concat_and_cache_mla": 18,
    "convert_fp8": 32,
    "convert_vertical_slash_indexes": 13,
    "copy_blocks": 12,
    "copy_blocks_mla": 12,
    "cp_gather_cache": 8,
    "cp_gather_indexer_k_quant_cache": 13,
    "cutlass_pack_scale_fp8": 8,
    "cutlass_scaled_mm": 32,
    "cutlass_scaled_mm_azp": 8,
    "fused_add_rms_norm": 225,
    "fused_qk_norm_rope": 120,
    "gather_and_maybe_dequant_cache": 13,
    "ggml_dequantize": 8,
    "ggml_moe_a8": 7,
    "ggml_moe_a8_vec": 7,
    "ggml_mul_mat_a8": 13,
    "ggml_mul_mat_vec_a8": 13,
    "gptq_gemm": 4,
    "gptq_marlin_24_gemm": 7,
    "gptq_marlin_gemm": 8,
    "gptq_marlin_moe_repack": 10,
    "gptq_shuffle": 6,
    "grouped_topk": 288,
    "hadacore_transform": 16,
    "marlin_int4_fp8_preprocess": 8,
    "merge_attn_states": 18,
    "moe_align_block_size": 360,
    "moe_lora_align_block_size": 10,
    "moe_sum": 48,
    "paged_attention_v1": 960,
    "paged_attention_v2": 8,
    "permute_cols": 30,
    "reshape_and_cache": 18,
    "reshape_and_cache_flash": 18,
    "rms_norm": 60,
    "rms_norm_dynamic_per_token_quant": 48,
    "rms_norm_per_block_quant": 64,
    "rotary_embedding": 360,
    "scaled_fp8_quant": 540,
    "scaled_int8_quant": 120 - 15,
    "selective_scan_fwd": 160,
    "shuffle_rows": 48,
    "swap_blocks": 54,
    "topk_softmax": 108,
}

SOLVED = [
    "rms_norm",
    "fused_add_rms_norm",
    "rotary_embedding",
    "moe_sum",
    "merge_attn_states",
    "reshape_and_cache",
    "topk_softmax",
    "moe_align_block_size",
    "scaled_int8_quant",
    "scaled_fp8_quant",
    "paged_attention_v1",
    "permute_cols",
    "shuffle_rows",
    "apply_repetition_penalties_cuda",
    "reshape_and_cache_flash",
    "concat_and_cache_mla",
]

SPECS = {s.name: s for s in registry.all_specs("vllm13")}


def test_catalog_is_upstreams_50_operators() -> None:
    assert set(SPECS) == UPSTREAM_NAMES
    assert set(SIGNATURES) == UPSTREAM_NAMES


@pytest.mark.parametrize("name", sorted(UPSTREAM_NAMES))
def test_contract_is_the_baseline_signature(name: str) -> None:
    spec = SPECS[name]
    tree = ast.parse(spec.signature + "\n    pass")
    baseline = tree.body[0]
    assert isinstance(baseline, ast.FunctionDef) and baseline.name == name
    assert [a.arg for a in baseline.args.args] == list(inspect.signature(spec.reference_impl).parameters)
    assert spec.entrypoints == (name,) and spec.id == f"vllm13::{name}"
    assert spec.mc is False
    assert spec.fidelity.strip()


@pytest.mark.parametrize("name", sorted(UPSTREAM_NAMES))
def test_full_tier_is_upstreams_grid(name: str) -> None:
    assert len(SPECS[name].tier("full")) == UPSTREAM_FULL_COUNTS[name]
    assert SPECS[name].tier("edge") and SPECS[name].tier("perf")


def test_provisional_specs_say_why() -> None:
    provisional = {n for n, s in SPECS.items() if s.provisional}
    # layouts we could not establish (Marlin, AllSpark, GGUF MoE blocks, ...)
    assert {"gptq_marlin_24_gemm", "allspark_w8a16_gemm"} <= provisional
    # Marlin's real tile/scale layouts, checked against vLLM's repack kernel and tests (test_vllm13_marlin.py)
    assert not {"gptq_marlin_gemm", "gptq_marlin_moe_repack", "awq_marlin_moe_repack"} & provisional
    assert "marlin_int4_fp8_preprocess" not in provisional
    # verified against vLLM's source and CUTLASS (tests/operators/test_vllm13_layouts.py)
    assert "cutlass_pack_scale_fp8" not in provisional
    assert all(len(SPECS[n].provisional) > 40 for n in provisional)
    assert "rms_norm" not in provisional and "paged_attention_v1" not in provisional


# ---------------------------------------------------------------- references vs independent formulations


def test_reshape_and_cache_matches_elementwise_scatter() -> None:
    rng = Rng(3)
    tokens, heads, head_size, blocks, block_size, x = 6, 2, 16, 4, 4, 8
    key, value = rng.randn((tokens, heads, head_size)), rng.randn((tokens, heads, head_size))
    slots = torch.tensor([5, -1, 0, 15, 9, 2])
    kc = torch.zeros(blocks, heads, head_size // x, block_size, x)
    vc = torch.zeros(blocks, heads, head_size, block_size)
    reshape_and_cache(key, value, kc, vc, slots, "auto", torch.tensor(1.0), torch.tensor(1.0))
    kc_loop, vc_loop = torch.zeros_like(kc), torch.zeros_like(vc)
    for t, s in enumerate(slots.tolist()):
        if s < 0:
            continue
        for h in range(heads):
            for d in range(head_size):
                kc_loop[s // block_size, h, d // x, s % block_size, d % x] = key[t, h, d]
                vc_loop[s // block_size, h, d, s % block_size] = value[t, h, d]
    assert torch.equal(kc, kc_loop) and torch.equal(vc, vc_loop)


def test_moe_align_reference_and_set_comparison() -> None:
    spec = SPECS["moe_align_block_size"]
    case = {"num_tokens": 9, "num_experts": 4, "block_size": 4, "topk": 2}
    inputs = spec.make_inputs(case, Rng(5))
    ref = spec.run_reference(inputs)
    sorted_ids, expert_ids, total = ref[0], ref[1], int(ref[2][0])
    flat = inputs["topk_ids"].reshape(-1)
    for b in range(total // 4):
        ids = sorted_ids[b * 4 : (b + 1) * 4]
        real = ids[ids < flat.numel()]
        assert bool((flat[real.long()] == expert_ids[b]).all())
    assert sorted(sorted_ids[sorted_ids < flat.numel()].tolist()) == list(range(flat.numel()))
    shuffled = sorted_ids.clone()
    first_run = (expert_ids[: total // 4] == expert_ids[0]).sum() * 4
    shuffled[:first_run] = shuffled[:first_run].flip(0)  # reorder inside expert 0's run: still correct
    assert spec.compare((shuffled, expert_ids, ref[2]), ref, case, inputs).passed
    swapped = sorted_ids.clone()
    a, b = 0, int(first_run)  # first slot of expert 0 and of the next run
    swapped[a], swapped[b] = sorted_ids[b], sorted_ids[a]
    assert not spec.compare((swapped, expert_ids, ref[2]), ref, case, inputs).passed


def test_rotary_neox_matches_complex_rotation() -> None:
    rng = Rng(11)
    tokens, heads, d = 5, 3, 16
    q = rng.randn((tokens, heads, d))
    positions = torch.tensor([0, 3, 7, 1, 9])
    cache = rope_cache(16, d, torch.float32, "cpu")
    expected = q.clone()
    angle = positions[:, None].float() * (1.0 / 10000 ** (torch.arange(0, d, 2).float() / d))[None, :]
    rot = torch.polar(torch.ones_like(angle), angle)[:, None, :]
    z = torch.complex(q[..., : d // 2], q[..., d // 2 :]) * rot
    expected[..., : d // 2], expected[..., d // 2 :] = z.real, z.imag
    rotary_embedding(positions, q, None, d, cache, True)
    torch.testing.assert_close(q, expected, atol=1e-5, rtol=1e-5)


def test_paged_attention_matches_dense_attention_per_sequence() -> None:
    spec = SPECS["paged_attention_v1"]
    case = {
        "num_seqs": 3,
        "context_len": 21,
        "num_heads": 4,
        "head_size": 16,
        "kv_divisor": 2,
        "block_size": 8,
        "dtype": "float32",
        "alibi": True,
    }
    inputs = spec.make_inputs(case, Rng(2))
    paged_attention_v1(*[inputs[p] for p in inspect.signature(paged_attention_v1).parameters])
    kc, vc, table = inputs["key_cache"], inputs["value_cache"], inputs["block_tables"]
    for s, n in enumerate(inputs["seq_lens"].tolist()):
        keys = torch.stack([kc[table[s, j // 8], :, :, j % 8, :].reshape(2, 16) for j in range(n)])  # [n, Hkv, D]
        values = torch.stack([vc[table[s, j // 8], :, :, j % 8] for j in range(n)])
        for h in range(4):
            logits = keys[:, h // 2] @ inputs["query"][s, h] * inputs["scale"]
            logits += inputs["alibi_slopes"][h] * (torch.arange(n) - n + 1)
            expected = torch.softmax(logits, 0) @ values[:, h // 2]
            torch.testing.assert_close(inputs["out"][s, h], expected, atol=1e-5, rtol=1e-5)


def test_merge_attn_states_equals_attention_over_both_parts() -> None:
    rng = Rng(8)
    q, k, v = rng.randn((2, 8)), rng.randn((2, 10, 8)), rng.randn((2, 10, 8))  # two heads, 10 keys

    def part(lo: int, hi: int) -> tuple[torch.Tensor, torch.Tensor]:
        logits = torch.einsum("hd,hkd->hk", q, k[:, lo:hi])
        return torch.einsum("hk,hkd->hd", torch.softmax(logits, -1), v[:, lo:hi]), torch.logsumexp(logits, -1)

    (p, lp), (s, ls) = part(0, 4), part(4, 10)
    out, out_lse = torch.empty(1, 2, 8), torch.empty(2, 1)
    merge_attn_states(out, p[None], lp[:, None], s[None], ls[:, None], out_lse)
    full, full_lse = part(0, 10)
    torch.testing.assert_close(out[0], full, atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(out_lse[:, 0], full_lse, atol=1e-6, rtol=1e-5)


def test_hadacore_is_an_involution() -> None:
    x = Rng(4).randn((3, 64))
    once = hadacore_transform(x.clone(), inplace=False)
    assert not torch.allclose(once, x)
    torch.testing.assert_close(hadacore_transform(once, inplace=False), x, atol=1e-5, rtol=1e-5)


def test_topk_and_grouped_topk_match_torch_topk() -> None:
    logits = Rng(6).randn((7, 16))
    w, ids, src = torch.empty(7, 3), torch.empty(7, 3, dtype=torch.int32), torch.empty(7, 3, dtype=torch.int32)
    topk_softmax(w, ids, src, logits, True)
    top = torch.softmax(logits, -1).topk(3)
    assert torch.equal(ids.long(), top.indices)
    torch.testing.assert_close(w, top.values / top.values.sum(-1, keepdim=True))
    assert src[2, 1] == 1 * 7 + 2
    weights, gids = grouped_topk(logits, 1, 1, 3, False, 2.0, torch.zeros(16), 1)
    top = torch.sigmoid(logits).topk(3)
    assert torch.equal(gids.long(), top.indices)
    torch.testing.assert_close(weights, 2.0 * top.values)


def test_quantisers_round_trip_within_half_a_step() -> None:
    x = Rng(9).randn((4, 64))
    q, scale, azp = scaled_int8_quant(x)
    assert azp is None and bool(((q.float() * scale - x).abs() <= scale / 2 + 1e-6).all())
    q, scale, azp = scaled_int8_quant(x, symmetric=False)
    assert bool((((q.float() - azp) * scale - x).abs() <= scale / 2 + 1e-5).all())
    q8, s8 = scaled_fp8_quant(x, use_per_token_if_dynamic=True)
    assert bool(((q8.float() * s8 - x).abs() <= x.abs() / 16 + s8 * 2**-9 + 1e-7).all())


@pytest.mark.parametrize("quant_type", [GGML_Q4_0, GGML_Q8_0])
def test_ggml_packer_round_trip(quant_type: int) -> None:
    w = Rng(1).randn((3, 64))
    back = ggml_dequantize_rows(ggml_quantize(w, quant_type), quant_type, 64)
    amax = w.reshape(3, 2, 32).abs().amax(-1, keepdim=True)
    # Q8_0: half a step; Q4_0 codes saturate at 15 on the positive extreme, one full step
    bound = amax / 127.0 * 0.51 if quant_type == GGML_Q8_0 else amax / 8.0 * 1.01
    assert bool(((back.reshape(3, 2, 32) - w.reshape(3, 2, 32)).abs() <= bound + 1e-3 * amax).all())


def test_awq_packing_and_gemm_match_explicit_dequantisation() -> None:
    rng = Rng(12)
    q, z = rng.randint(0, 16, (8, 16)), rng.randint(0, 16, (2, 16))
    qweight, qzeros = pack_last(q, 4, AWQ_NIBBLE_OF_COLUMN), pack_last(z, 4, AWQ_NIBBLE_OF_COLUMN)
    assert torch.equal(unpack_last(qweight, 4, AWQ_NIBBLE_OF_COLUMN), q)
    # AWQ word layout: column 8c+1 sits in bits 16..19
    assert int(qweight[0, 0]) >> 16 & 0xF == int(q[0, 1])
    scales = rng.uniform((2, 16), 0.1, 0.2, "float16")
    a = rng.randn((3, 8), "float16")
    w = torch.stack([(q[k] - z[k // 4]).float() * scales[k // 4].float() for k in range(8)])
    torch.testing.assert_close(awq_gemm(a, qweight, scales, qzeros, 1).float(), a.float() @ w, atol=2e-2, rtol=1e-2)


def test_gptq_shuffle_interleaves_even_and_odd_rows() -> None:
    # one word holding rows 0..7 with values 1..8 (row r in bits 4r..4r+3), act-order perm reversing 8 rows
    word = sum((r + 1) << (4 * r) for r in range(8))
    q_weight = torch.tensor([[word]], dtype=torch.int64).to(torch.int32)
    gptq_shuffle(q_weight, torch.arange(7, -1, -1, dtype=torch.int32), 4)
    nibbles = [(int(q_weight) >> (4 * i)) & 0xF for i in range(8)]
    # after the perm row r holds 8 - r; even rows go to nibbles 0-3, odd rows to nibbles 4-7
    assert nibbles == [8, 6, 4, 2, 7, 5, 3, 1]


@pytest.mark.parametrize("name", sorted(UPSTREAM_NAMES))
def test_reference_is_deterministic_under_a_seed(name: str) -> None:
    spec = SPECS[name]
    case = spec.tier("smoke")[0]
    first = spec.run_reference(spec.make_inputs(case, Rng(21)))
    second = spec.run_reference(spec.make_inputs(case, Rng(21)))
    assert spec.compare(second, first, case, spec.make_inputs(case, Rng(21))).passed


# ---------------------------------------------------------------- Triton reference solutions (CPU interpreter)

_SMOKE_SCRIPT = """
import importlib.util, json, sys
from operators import registry
from operators.spec import Rng
results = {}
for name in sys.argv[1:]:
    spec = registry.get("vllm13::" + name)
    path = registry.reference_solution_path(spec)
    module_spec = importlib.util.spec_from_file_location("solution_" + name, path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    verdicts = []
    for case in spec.tier("smoke"):
        for seed in (0, 1):
            ref = spec.run_reference(spec.make_inputs(case, Rng(seed)))
            inputs = spec.make_inputs(case, Rng(seed))
            out = spec.invoke(getattr(module, name), inputs)
            c = spec.compare(out, ref, case, spec.make_inputs(case, Rng(seed)))
            verdicts.append([c.passed, c.reason])
    results[name] = verdicts
print(json.dumps(results))
"""


def test_triton_reference_solutions_pass_smoke_in_the_interpreter() -> None:
    for name in SOLVED:
        assert registry.reference_solution_path(SPECS[name]) is not None, name
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", _SMOKE_SCRIPT, *SOLVED], capture_output=True, text=True, env=env, cwd=REPO, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    failures = {n: [r for ok, r in v if not ok] for n, v in results.items() if not all(ok for ok, _ in v)}
    assert not failures
    assert math.isclose(len(results), len(SOLVED))


def test_upstream_rule_is_assert_close_at_the_dtype_resolution() -> None:
    """UPSTREAM is upstream's assert_close(act, ref, dtype): atol 1e-4, rtol fp16 1e-3 / bf16 0.016 / fp32 1e-5;
    integers exact; fp8 compared as fp16 values."""
    from operators.catalog.vllm13._support import UPSTREAM

    ref = torch.full((4,), 2.0)
    assert UPSTREAM(ref + (1e-4 + 2e-5 * 0.9), ref, "out").passed
    assert not UPSTREAM(ref + (1e-4 + 2e-5 * 1.1), ref, "out").passed
    half = ref.half()
    assert UPSTREAM(half + 2**-9, half, "out").passed  # one fp16 ulp at 2: within 1e-4 + 2e-3
    assert not UPSTREAM(half + 2**-8, half, "out").passed
    ints = torch.arange(4, dtype=torch.int8)
    assert not UPSTREAM(ints + torch.tensor([0, 0, 0, 1], dtype=torch.int8), ints, "out").passed
    fp8 = ref.to(torch.float8_e4m3fn)
    assert not UPSTREAM((ref * 1.2).to(torch.float8_e4m3fn), fp8, "out").passed
