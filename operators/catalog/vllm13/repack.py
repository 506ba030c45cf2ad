"""vLLM weight repacks and layout ops: permute_cols, gptq_shuffle, gptq_marlin_moe_repack, awq_marlin_moe_repack,
marlin_int4_fp8_preprocess."""

from __future__ import annotations

from typing import Any

import torch

from operators.catalog.common import product
from operators.catalog.vllm13._bits import pack_last, pack_rows, unpack_last, unpack_rows
from operators.catalog.vllm13._marlin import marlin_pack
from operators.catalog.vllm13._support import bytes_cost, exact, vllm_spec
from operators.catalog.vllm13.qgemm import AWQ_NIBBLE_OF_COLUMN
from operators.spec import Rng

# ---------------------------------------------------------------- permute_cols


def permute_cols(a: torch.Tensor, perm: torch.Tensor) -> torch.Tensor:
    return a[:, perm.long()]


def _permute_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    rows, cols = case["shape"]
    pattern = case["perm_pattern"]
    if pattern == "identity":
        perm = torch.arange(cols, device=rng.device)
    elif pattern == "reverse":
        perm = torch.arange(cols - 1, -1, -1, device=rng.device)
    else:
        perm = rng.randperm(cols)
    return {"a": rng.randn((rows, cols), case["dtype"]), "perm": perm.to(torch.int32)}


PERMUTE_COLS = vllm_spec(
    name="permute_cols",
    category="layout",
    description="Column gather (GPTQ act-order helper): returns out [M, K] with out[:, j] = a[:, perm[j]].",
    reference_impl=permute_cols,
    make_inputs=_permute_inputs,
    cases={
        "smoke": [
            {"shape": [3, 40], "perm_pattern": "random", "dtype": "float16"},
            {"shape": [2, 24], "perm_pattern": "reverse", "dtype": "bfloat16"},
        ],
        "full": product(
            shape=[(1, 32), (71, 504), (128, 512), (1024, 4096), (5333, 8192)],
            perm_pattern=["identity", "reverse", "random"],
            dtype=["float16", "bfloat16"],
        ),
        "edge": [{"shape": [5, 7], "perm_pattern": "random", "dtype": "float32"}],
        "perf": [
            {"shape": [4096, 14336], "perm_pattern": "random", "dtype": "bfloat16"},
            {"shape": [16, 8192], "perm_pattern": "random", "dtype": "float16"},
        ],
    },
    fidelity="vLLM tests/kernels/core/test_permute_cols.py reference (a[:, perm]); upstream grid (30); exact.",
    returns=True,
    checkers=(exact,),
    cost=bytes_cost(),
)


# ---------------------------------------------------------------- gptq_shuffle


def gptq_shuffle(q_weight: torch.Tensor, q_perm: torch.Tensor, bit: int) -> None:
    q = unpack_rows(q_weight, bit)
    if q_perm.numel():
        q = q[q_perm.long()]  # act-order: make the rows sequential
    if bit == 4:
        # exllama's 4-bit shuffle inside each word of 8 rows: even rows to nibbles 0-3, odd rows to 4-7
        groups = q.reshape(-1, 8, q.shape[1])
        q = torch.cat([groups[:, 0::2], groups[:, 1::2]], dim=1).reshape(q.shape)
    q_weight.copy_(pack_rows(q, bit))


def _shuffle_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    k, n = case["shape"]
    bit = case["bit"]
    perm = rng.randperm(k) if case.get("act_order", True) else torch.empty(0, dtype=torch.int64, device=rng.device)
    return {
        "q_weight": pack_rows(rng.randint(0, 1 << bit, (k, n)), bit),
        "q_perm": perm.to(torch.int32),
        "bit": bit,
    }


GPTQ_SHUFFLE = vllm_spec(
    name="gptq_shuffle",
    category="layout",
    description=(
        "In-place GPTQ weight preparation for the exllama kernel. q_weight [K*bit/32, N] int32 packs 32/bit "
        "consecutive rows per word (row r at bits r*bit). If q_perm [K] is non-empty the rows are first reordered "
        "so that new row k = old row q_perm[k]; then, for 4-bit, the 8 rows of every word are interleaved: rows "
        "0,2,4,6 go to nibbles 0-3 and rows 1,3,5,7 to nibbles 4-7 (8-bit words are left as they are)."
    ),
    reference_impl=gptq_shuffle,
    make_inputs=_shuffle_inputs,
    cases={
        "smoke": [{"shape": [64, 8], "bit": 4}, {"shape": [32, 12], "bit": 8}],
        "full": [
            {"shape": [k, n], "bit": b}
            for (k, n), b in [
                ((512, 128), 8),
                ((1024, 256), 8),
                ((4096, 1024), 8),
                ((256, 32), 4),
                ((4096, 512), 4),
                ((4096, 1024), 4),
            ]
        ],
        "edge": [{"shape": [128, 24], "bit": 4, "act_order": False}],
        "perf": [{"shape": [4096, 14336], "bit": 4}],
    },
    fidelity=(
        "vLLM csrc/quantization/gptq q_gemm.cu (exllama): make_sequential_*bit_kernel takes new row i from old "
        "row q_perm[i]; shuffle_4bit_8 moves rows 2k to nibble k and rows 2k+1 to nibble 4+k; shuffle_8bit_4 is "
        "empty (qdq_8.cuh). Weights from our own GPTQ packer; upstream's 6 (shape, bit) pairs re-read as (K, N) "
        "with a K-long q_perm (upstream passes a perm of the packed column count). Exact."
    ),
    returns=False,
    mutates=("q_weight",),
    checkers=(exact,),
    cost=bytes_cost(),
)


# ---------------------------------------------------------------- Marlin MoE repacks

# AWQ packs 32/bits columns per word along N, column j of a word in slot WORD_SLOT_OF_AWQ_COLUMN[bits][j]
# (vLLM awq_marlin_repack.cu undo_pack tables; the inverse of quant_utils.awq_pack's interleave)
WORD_SLOT_OF_AWQ_COLUMN = {4: AWQ_NIBBLE_OF_COLUMN, 8: [0, 2, 1, 3]}

MOE_REPACK_SOURCES = (
    "vLLM vllm/_custom_ops.py: the MoE repack loops over experts calling gptq_marlin_repack(b_q_weight[e], "
    "perm[e], ...) / awq_marlin_repack(b_q_weight[e], ...) (the AWQ one never reads perm) into "
    "[E, K/16, N*bits/2]; gptq_marlin_repack.cu (index copy at 0794945f) / awq_marlin_repack.cu (18a21921) "
    "for the tile layout, which vLLM's test_marlin_gemm.py (01065c02) asserts equal to marlin_weights("
    "get_weight_perm(bits)) of marlin_utils_test.py (04aa528e); layout in operators/catalog/vllm13/_marlin.py."
)


def _require_16bit_activations(is_a_8bit: bool) -> None:
    if is_a_8bit:
        raise NotImplementedError("the int8/fp8-activation Marlin layout (32x32 tiles) is not in this catalog")


def gptq_marlin_moe_repack(
    b_q_weight: torch.Tensor, perm: torch.Tensor, size_k: int, size_n: int, num_bits: int, is_a_8bit: bool = False
) -> torch.Tensor:
    _require_16bit_activations(is_a_8bit)
    out = []
    for e in range(b_q_weight.shape[0]):
        q = unpack_rows(b_q_weight[e], num_bits)
        if perm[e].numel():  # act-order: new row k = old row perm[e, k]
            q = q[perm[e].long()]
        out.append(marlin_pack(q, num_bits))
    return torch.stack(out)


def awq_marlin_moe_repack(
    b_q_weight: torch.Tensor, perm: torch.Tensor, size_k: int, size_n: int, num_bits: int, is_a_8bit: bool = False
) -> torch.Tensor:
    # perm is accepted and ignored, as in vLLM (AWQ has no act-order)
    _require_16bit_activations(is_a_8bit)
    order = WORD_SLOT_OF_AWQ_COLUMN[num_bits]
    return torch.stack([marlin_pack(unpack_last(w, num_bits, order), num_bits) for w in b_q_weight])


def _moe_repack_inputs(case: dict[str, Any], rng: Rng, *, awq: bool) -> dict[str, Any]:
    experts, k, n, bits = case["config"]
    codes = [rng.randint(0, 1 << bits, (k, n)) for _ in range(experts)]
    if awq:
        packed = torch.stack([pack_last(c, bits, WORD_SLOT_OF_AWQ_COLUMN[bits]) for c in codes])
    else:
        packed = torch.stack([pack_rows(c, bits) for c in codes])
    if case.get("act_order"):
        perm = torch.stack([rng.randperm(k) for _ in range(experts)]).to(torch.int32)
    else:
        perm = torch.arange(k, device=rng.device, dtype=torch.int32).expand(experts, k).contiguous()
    return {"b_q_weight": packed, "perm": perm, "size_k": k, "size_n": n, "num_bits": bits, "is_a_8bit": False}


UPSTREAM_MOE_REPACK = [
    (4, 256, 256, 4),
    (8, 256, 512, 4),
    (4, 512, 256, 4),
    (16, 256, 256, 4),
    (4, 256, 256, 8),
    (8, 512, 512, 4),
    (8, 512, 512, 8),
    (16, 512, 512, 4),
    (16, 512, 512, 8),
    (8, 1024, 512, 4),
]

MARLIN_LAYOUT_TEXT = (
    "Marlin's layout (is_a_8bit=False): 16x64 (k x n) tiles, k-tile major; in a tile, thread th = 0..31 and "
    "16-column block w = 0..3 own rows r = 2*(th%4) + (0, 1, 8, 9) of columns c = 16w + th//4 and c + 8; "
    "4-bit: word th*4 + w, nibbles 0..7 = (r0,c), (r2,c), (r0,c+8), (r2,c+8), (r1,c), (r3,c), (r1,c+8), "
    "(r3,c+8); 8-bit: words th*8 + 2w and th*8 + 2w + 1, bytes (r0,c), (r2,c), (r1,c), (r3,c) and the same "
    "for column c+8. Needs K % 16 == 0 and N % 64 == 0."
)

GPTQ_MARLIN_MOE_REPACK = vllm_spec(
    name="gptq_marlin_moe_repack",
    category="layout",
    description=(
        "Repack per-expert GPTQ weights b_q_weight [E, K*bits/32, N] int32 (32/bits consecutive rows per word, "
        "row r at bits r*bits) into [E, K/16, N*bits/2] int32 in " + MARLIN_LAYOUT_TEXT + " With a non-empty "
        "perm [E, K] the rows are taken in act-order first: new row k = old row perm[e, k]."
    ),
    reference_impl=gptq_marlin_moe_repack,
    make_inputs=lambda case, rng: _moe_repack_inputs(case, rng, awq=False),
    cases={
        "smoke": [{"config": [2, 32, 64, 4]}, {"config": [2, 32, 64, 8], "act_order": True}],
        "full": [{"config": list(c)} for c in UPSTREAM_MOE_REPACK],
        "edge": [{"config": [3, 48, 192, 4], "act_order": True}],
        "perf": [{"config": [64, 2048, 1408, 4]}],
    },
    fidelity=(
        MOE_REPACK_SOURCES + " Checked in tests/operators/test_vllm13.py: the tile packer equals an explicit "
        "per-thread index formulation of repack_tile (4 and 8 bits), and repack -> our own unpack gives back "
        "the original codes in perm order (vLLM's own oracle compares the words with marlin_weights). Upstream "
        "configs (10); smoke/edge N raised to Marlin's 64-column tile. Exact."
    ),
    returns=True,
    checkers=(exact,),
    cost=bytes_cost(),
)

AWQ_MARLIN_MOE_REPACK = vllm_spec(
    name="awq_marlin_moe_repack",
    category="layout",
    description=(
        "Repack per-expert AWQ weights b_q_weight [E, K, N*bits/32] int32 (packed along N; column j of a word "
        "in 4-bit nibble [0, 4, 1, 5, 2, 6, 3, 7][j] or 8-bit byte [0, 2, 1, 3][j]) into [E, K/16, N*bits/2] "
        "int32 in " + MARLIN_LAYOUT_TEXT + " perm is accepted and ignored (vLLM never reads it here)."
    ),
    reference_impl=awq_marlin_moe_repack,
    make_inputs=lambda case, rng: _moe_repack_inputs(case, rng, awq=True),
    cases={
        "smoke": [{"config": [2, 32, 64, 4]}, {"config": [2, 32, 64, 8]}],
        "full": [{"config": list(c)} for c in UPSTREAM_MOE_REPACK],
        "edge": [{"config": [3, 48, 192, 4], "act_order": True}],
        "perf": [{"config": [64, 2048, 1408, 4]}],
    },
    fidelity=(
        MOE_REPACK_SOURCES + " AWQ column order from awq_marlin_repack.cu's undo_pack tables (4 and 8 bits). "
        "Checked in tests/operators/test_vllm13.py: AWQ repack equals the GPTQ repack of the same codes, its "
        "output does not depend on perm, and unpacking gives back the codes. The edge case passes a random perm "
        "that must be ignored. Upstream configs (10); smoke/edge N raised to Marlin's 64-column tile. Exact."
    ),
    returns=True,
    checkers=(exact,),
    cost=bytes_cost(),
)


# ---------------------------------------------------------------- marlin_int4_fp8_preprocess


def _fold_zero_point(codes: torch.Tensor, zeros: torch.Tensor | int) -> torch.Tensor:
    # c >= z -> c - z; otherwise 15 - c (vLLM's encoding for the fp8 dequantiser, not two's complement)
    return torch.where(codes >= zeros, codes - zeros, 15 - codes)


def marlin_int4_fp8_preprocess(
    qweight: torch.Tensor, qzeros_or_none: torch.Tensor | None = None, inplace: bool = False
) -> torch.Tensor:
    codes = unpack_last(qweight, 4)
    if qzeros_or_none is None:
        folded = _fold_zero_point(codes, 8)
    else:  # AWQ: qweight [K, N/8], qzeros [K/G, N/8], the same nibble of the group's zero word
        zeros = unpack_last(qzeros_or_none, 4)
        folded = _fold_zero_point(codes, zeros.repeat_interleave(qweight.shape[0] // zeros.shape[0], dim=0))
    out = pack_last(folded, 4)
    if inplace:
        qweight.copy_(out)
        return qweight
    return out


def _preprocess_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    k, n = case["config"]
    return {"qweight": pack_rows(rng.randint(0, 16, (k, n)), 4), "qzeros_or_none": None, "inplace": False}


MARLIN_INT4_FP8_PREPROCESS = vllm_spec(
    name="marlin_int4_fp8_preprocess",
    category="layout",
    description=(
        "Prepare uint4b8 words for the W4A8-FP8 Marlin kernel (no zero points): every 4-bit code c of qweight "
        "int32 (any 2-D shape whose element count is a multiple of 32; here GPTQ words [K/8, N]) becomes "
        "c - 8 if c >= 8 else 15 - c, in the same nibble; returns a new tensor (inplace=False)."
    ),
    reference_impl=marlin_int4_fp8_preprocess,
    make_inputs=_preprocess_inputs,
    cases={
        "smoke": [{"config": [32, 8]}, {"config": [64, 4]}],
        "full": [
            {"config": list(c)}
            for c in [
                (256, 256),
                (512, 256),
                (256, 512),
                (512, 512),
                (1024, 512),
                (512, 1024),
                (1024, 1024),
                (2048, 1024),
            ]
        ],
        "edge": [{"config": [8, 96]}],
        "perf": [{"config": [4096, 14336]}],
    },
    fidelity=(
        "vLLM csrc/quantization/gptq_marlin/marlin_int4_fp8_preprocess.cu (index copy at 04aa528e): the "
        "no-zero-point kernel maps each nibble in place, v >= 8 ? v - 8 : 15 - v, over the words as a flat "
        "array (element count a multiple of 32); the AWQ branch (qzeros given) uses the zero nibble of the "
        "same word position instead of 8, also implemented here. Checked in tests/operators/test_vllm13.py "
        "against vLLM's test_marlin_int4_fp8_preprocess_without_zp / _awq formulation (test_marlin_gemm.py "
        "01065c02): per-column torch.where, two codes per byte, viewed as int32. Upstream configs (8); the "
        "edge case is one word row (the old [1, 1] edge was below the kernel's 32-word minimum). Exact."
    ),
    returns=True,
    checkers=(exact,),
    cost=bytes_cost(),
)

SPECS = [PERMUTE_COLS, GPTQ_SHUFFLE, GPTQ_MARLIN_MOE_REPACK, AWQ_MARLIN_MOE_REPACK, MARLIN_INT4_FP8_PREPROCESS]
