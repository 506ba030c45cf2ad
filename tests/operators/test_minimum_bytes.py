"""Cost models count the bytes a call must read and write at the least, not whole buffers it touches in
part: the harness's physics layer flags a timed call faster than 85% of bytes / peak bandwidth, so a cost
that counts a whole cache (or a buffer that is only written as read too) flags honest fast kernels.
Each expected value below is written out from the operator's definition."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from operators import registry
from operators.spec import Rng


def _bytes(operator: str, case: dict[str, Any], seed: int = 0) -> tuple[float, dict[str, Any]]:
    spec = registry.get(operator)
    inputs = spec.make_inputs(case, Rng(seed))
    return spec.cost(case, inputs).bytes, inputs


# ---------------------------------------------------------------- vLLM block copies


@pytest.mark.parametrize("num_blocks", [6, 96])
def test_copy_blocks_counts_the_mapped_blocks_of_every_layer(num_blocks: int) -> None:
    heads, head_size, block_size, pairs, layers = 2, 16, 4, 2, 3
    case = {"config": [num_blocks, heads, head_size, block_size, pairs], "num_layers": layers}  # float16
    cost, _ = _bytes("vllm13::copy_blocks", case)
    block = heads * head_size * block_size * 2  # one block of one cache; key and value blocks are equal in size
    assert cost == pairs * 2 * 8 + 2 * pairs * layers * (2 * block)  # int64 mapping; read + write per block


@pytest.mark.parametrize("num_blocks", [6, 96])
def test_copy_blocks_mla_counts_the_mapped_blocks_of_every_layer(num_blocks: int) -> None:
    block_size, kv_dim, pairs, layers = 4, 72, 2, 2
    case = {"config": [num_blocks, block_size, kv_dim, pairs], "num_layers": layers, "dtype": "bfloat16"}
    cost, _ = _bytes("vllm13::copy_blocks_mla", case)
    assert cost == pairs * 2 * 8 + 2 * pairs * layers * (block_size * kv_dim * 2)


@pytest.mark.parametrize(("kind", "rows"), [("random_subset", 3), ("reverse", 6), ("identity", 6)])
def test_swap_blocks_counts_one_block_read_and_written_per_mapping_row(kind: str, rows: int) -> None:
    case = {"num_blocks": 6, "block_shape": [2, 16], "dtype": "bfloat16", "mapping_kind": kind}
    cost, inputs = _bytes("vllm13::swap_blocks", case)
    assert inputs["block_mapping"].shape[0] == rows
    assert cost == 2 * rows * (2 * 16 * 2)  # the mapping is on the host: no device traffic


# ---------------------------------------------------------------- vLLM cache gathers


@pytest.mark.parametrize("num_blocks", [8, 128])
def test_cp_gather_cache_counts_the_gathered_tokens_not_the_cache(num_blocks: int) -> None:
    block_size, heads, head_size, batch = 4, 2, 16, 2
    cost, _ = _bytes("vllm13::cp_gather_cache", {"config": [num_blocks, block_size, heads, head_size, batch]})
    tokens = batch * 2 * block_size  # full blocks: every sequence spans its two table entries
    entry = heads * head_size * 2  # float16 cache entry, read once and written once
    assert cost == tokens * 2 * entry + batch * 2 * 4 + (batch + 1) * 4  # + int32 table entries and cu_seq_lens


def test_cp_gather_cache_counts_the_table_entries_partial_sequences_use() -> None:
    cost, inputs = _bytes("vllm13::cp_gather_cache", {"config": [6, 8, 1, 32, 3], "full_blocks": False})
    lengths = inputs["cu_seq_lens"].diff().tolist()
    entries = sum(-(-n // 8) for n in lengths)
    assert cost == sum(lengths) * 2 * 32 * 2 + entries * 4 + 4 * 4


@pytest.mark.parametrize("num_blocks", [8, 128])
def test_gather_and_maybe_dequant_cache_counts_the_gathered_tokens(num_blocks: int) -> None:
    block_size, entry, batch = 4, 40, 2
    cost, _ = _bytes("vllm13::gather_and_maybe_dequant_cache", {"config": [num_blocks, block_size, entry, batch]})
    tokens = batch * 2 * block_size
    # per token: token_to_seq (int32), the float16 entry read and written; table entries; cu_seq_lens
    assert cost == tokens * (4 + entry * 2 * 2) + batch * 2 * 4 + (batch + 1) * 4


def test_gather_and_maybe_dequant_cache_fp8_reads_bytes_and_the_scale() -> None:
    case = {"config": [8, 4, 40, 2], "kv_cache_dtype": "fp8", "dtype": "bfloat16"}
    cost, _ = _bytes("vllm13::gather_and_maybe_dequant_cache", case)
    tokens = 2 * 2 * 4
    assert cost == tokens * (4 + 40 * (1 + 2)) + 2 * 2 * 4 + 3 * 4 + 4  # uint8 entries in, bf16 out, fp32 scale


@pytest.mark.parametrize("num_blocks", [4, 64])
def test_cp_gather_indexer_k_quant_cache_counts_the_gathered_rows(num_blocks: int) -> None:
    block_size, head_dim, batch = 4, 256, 2
    cost, _ = _bytes("vllm13::cp_gather_indexer_k_quant_cache", {"config": [num_blocks, block_size, head_dim, batch]})
    tokens, row = batch * 2 * block_size, head_dim + 4 * (head_dim // 128)  # fp8 key bytes + fp32 scales
    assert cost == tokens * 2 * row + batch * 2 * 4 + (batch + 1) * 4


# ---------------------------------------------------------------- GGUF MoE: only the routed experts' weights


def _moe_expected(inputs: dict[str, Any], experts_used: int) -> int:
    rows, weights = inputs["tokens"] * inputs["top_k"], inputs["W"]
    small = sum(v.numel() * v.element_size() for k, v in inputs.items() if isinstance(v, torch.Tensor) and k != "W")
    return small + experts_used * weights[0].numel() * weights.element_size() + rows * inputs["row"] * 4


def test_ggml_moe_a8_vec_reads_the_weights_of_the_routed_experts_only() -> None:
    cost, inputs = _bytes("vllm13::ggml_moe_a8_vec", {"config": [8, 1, 2, 64, 32]})  # 1 token, top-2 of 8
    assert cost == _moe_expected(inputs, experts_used=2)


def test_ggml_moe_a8_reads_the_weights_of_the_routed_experts_only() -> None:
    cost, inputs = _bytes("vllm13::ggml_moe_a8", {"config": [8, 1, 2, 64, 32]})
    assert cost == _moe_expected(inputs, experts_used=2)


# ---------------------------------------------------------------- ATen samplers and masked_fill_


@pytest.mark.parametrize(
    ("overload", "read_bytes_per_element"),
    [("default", 2), ("out", 2), ("p", 0), ("float_out", 0), ("Tensor", 4), ("Tensor_out", 4)],
)
def test_bernoulli_reads_only_the_probabilities(overload: str, read_bytes_per_element: int) -> None:
    case = {"shape": [33, 130], "dtype": "float16", "overload": overload, "p": 0.3}
    cost, _ = _bytes("aten::bernoulli", case)
    assert cost == 33 * 130 * (read_bytes_per_element + 2)  # float16 self or float32 p read; samples written


def test_exponential_only_writes_self() -> None:
    cost, _ = _bytes("aten::exponential_", {"shape": [64, 64], "dtype": "bfloat16", "lambd": 1.0})
    assert cost == 64 * 64 * 2


@pytest.mark.parametrize(
    ("training", "overload", "arrays"), [(True, "default", 3), (True, "out", 3), (False, "out", 2)]
)
def test_rrelu_with_noise_writes_the_noise_only_in_training(training: bool, overload: str, arrays: int) -> None:
    case = {"shape": [64, 64], "dtype": "float32", "training": training, "bounds": [0.1, 0.4], "overload": overload}
    cost, _ = _bytes("aten::rrelu_with_noise", case)
    assert cost == arrays * 64 * 64 * 4  # self read, output written (+ noise written)


@pytest.mark.parametrize("value_kind", ["python", "tensor"])
def test_masked_fill_writes_only_the_selected_elements(value_kind: str) -> None:
    case = {"shape": [64, 7, 33], "mask_shape": [7, 1], "dtype": "float32", "threshold": 0.0, "value_kind": value_kind}
    cost, inputs = _bytes("aten::masked_fill_", case)
    selected = int(inputs["mask"].sum()) * 64 * 33
    value_bytes = 8 if value_kind == "tensor" else 0  # a 0-d int64 tensor
    assert 0 < selected < 64 * 7 * 33
    assert cost == 7 + value_bytes + selected * 4


@pytest.mark.parametrize(
    ("training", "lower", "upper", "factor_bytes"),
    [(True, 0.1, 0.3, 2), (False, 0.1, 0.3, 2), (True, 0.2, 0.2, 2)],  # equal bounds: eval's formula
)
def test_rrelu_with_noise_backward_reads_noise_or_self_not_both(
    training: bool, lower: float, upper: float, factor_bytes: int
) -> None:
    case = {"shape": [64, 30], "dtype": "float16", "training": training, "lower": lower, "upper": upper}
    cost, _ = _bytes("aten::rrelu_with_noise_backward", case)
    assert cost == 64 * 30 * (2 + factor_bytes + 2)  # grad_output and noise (or self) read, grad_input written


def test_reflection_pad1d_backward_does_not_read_self() -> None:
    cost, _ = _bytes("aten::reflection_pad1d_backward", {"shape": [2, 4, 16], "dtype": "float16", "padding": [5, 5]})
    assert cost == (2 * 4 * 26 + 2 * 4 * 16) * 2  # grad_output read, grad_input written; self is only a shape


# ---------------------------------------------------------------- cuBLAS operands BLAS does not read


@pytest.mark.parametrize(("alpha", "beta", "arrays"), [(1.0, 1.0, 3), (0.5, 0.0, 2), (0.0, 2.0, 2)])
def test_geam_reads_a_and_b_only_with_nonzero_factors(alpha: float, beta: float, arrays: int) -> None:
    case = {"transa": "N", "transb": "N", "m": 9, "n": 7, "alpha": alpha, "beta": beta}
    assert registry.get("cublas::cublasSgeam").cost(case, {}).bytes == arrays * 9 * 7 * 4


@pytest.mark.parametrize(("beta", "c_arrays"), [(0j, 1), (0.5 + 0j, 2)])
def test_symm_reads_c_only_with_nonzero_beta(beta: complex, c_arrays: int) -> None:
    case = {"side": "R", "uplo": "U", "m": 6, "n": 4, "alpha": 1 + 0j, "beta": beta}
    elements = 4 * 4 / 2 + 6 * 4 + c_arrays * 6 * 4  # one triangle of A (n x n), B read, C written (+ read)
    assert registry.get("cublas::cublasCsymm_v2").cost(case, {}).bytes == elements * 8
