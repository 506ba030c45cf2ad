"""vLLM RMSNorm family and rotary embeddings: rms_norm, fused_add_rms_norm,
rms_norm_dynamic_per_token_quant, rms_norm_per_block_quant, rotary_embedding, fused_qk_norm_rope."""

from __future__ import annotations

from typing import Any

import torch

from operators.catalog.common import product
from operators.catalog.vllm13._support import (
    FP8_MAX,
    FP8_MIN_SCALE,
    NORM,
    UPSTREAM,
    at_upstream_rule,
    bytes_cost,
    close,
    dt,
    fp8_within_one_step,
    int_within,
    kept_looser,
    per_output,
    vllm_spec,
)
from operators.spec import Rng

UPSTREAM_MN = [(1, 32), (71, 497), (128, 512), (1024, 4096), (5333, 8192)]
FLOATS = ["float16", "bfloat16", "float32"]


def _rows(rng: Rng, tokens: int, hidden: int, dtype: str, *, row_stride: int = 0) -> torch.Tensor:
    """[tokens, hidden]; with row_stride > hidden a view into a wider buffer (vLLM allows a row stride)."""
    if row_stride and row_stride > hidden:
        return rng.randn((tokens, row_stride), dtype)[:, :hidden]
    return rng.randn((tokens, hidden), dtype)


def _nan_like(x: torch.Tensor) -> torch.Tensor:
    return torch.full(x.shape, float("nan"), dtype=x.dtype, device=x.device)


# ---------------------------------------------------------------- rms_norm


def rms_norm(out: torch.Tensor, input: torch.Tensor, weight: torch.Tensor, epsilon: float) -> None:
    # vLLM: variance in fp32, normalised value cast to the input dtype, then times weight in that dtype
    x = input.float()
    inv = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + epsilon)
    out.copy_((x * inv).to(input.dtype) * weight)


def _rms_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    tokens, hidden = case["shape"]
    x = _rows(rng, tokens, hidden, case["dtype"], row_stride=case.get("row_stride", 0))
    if case.get("weight_mode", "randn") == "ones":
        w = torch.ones(hidden, dtype=dt(case["dtype"]), device=rng.device)
    else:
        w = rng.randn((hidden,), case["dtype"])
    return {
        "out": _nan_like(torch.empty((tokens, hidden), dtype=x.dtype, device=x.device)),
        "input": x,
        "weight": w,
        "epsilon": case["epsilon"],
    }


def _rms_flops(case: dict[str, Any], inputs: dict[str, Any]) -> float:
    return 4.0 * inputs["input"].numel()


RMS_NORM = vllm_spec(
    name="rms_norm",
    category="normalization",
    description=(
        "RMSNorm over the last dimension: out[t] = (x[t] * rsqrt(mean(x[t]^2) + epsilon)).to(dtype) * weight, "
        "variance accumulated in fp32, result written into the preallocated `out` [tokens, hidden]."
    ),
    reference_impl=rms_norm,
    make_inputs=_rms_inputs,
    cases={
        "smoke": [
            {"shape": [3, 33], "dtype": "float32", "epsilon": 1e-6, "weight_mode": "randn"},
            {"shape": [4, 64], "dtype": "float16", "epsilon": 1e-5, "weight_mode": "randn"},
        ],
        "full": product(shape=UPSTREAM_MN, dtype=FLOATS, epsilon=[1e-6, 1e-5], weight_mode=["ones", "randn"]),
        "edge": [
            {"shape": [7, 769], "dtype": "float16", "epsilon": 1e-6, "row_stride": 1538},
            {"shape": [83, 5125], "dtype": "bfloat16", "epsilon": 1e-6},
            {"shape": [1, 8], "dtype": "float32", "epsilon": 1e-5},
        ],
        "perf": [
            {"shape": [16384, 8192], "dtype": "bfloat16", "epsilon": 1e-6},
            {"shape": [4096, 4096], "dtype": "float16", "epsilon": 1e-6},
            {"shape": [128, 8192], "dtype": "bfloat16", "epsilon": 1e-6},
        ],
    },
    fidelity=(
        "Formulation of vLLM's RMSNorm.forward_native (tests/kernels/core/test_layernorm.py reference) and "
        "csrc/layernorm_kernels.cu: fp32 variance, cast to the input dtype before the weight multiply. "
        "Upstream KernelGenBench grid (60 cases) in `full`; compared with NORM (atol=rtol=1e-2) as vLLM's test, "
        + kept_looser(
            "our Triton reference solution on 3 of 90 full case-seeds (6 of 4194304 elements at [1024, 4096] fp16) and the reference on the GPU against the host on 4 of 90"
        )
        + "."
    ),
    returns=False,
    mutates=("out",),
    checkers=(NORM,),
    cost=bytes_cost(_rms_flops),
    notes="`input` may be a row-strided view (stride(-1) == 1, stride(0) >= hidden); `out` is contiguous.",
)


# ---------------------------------------------------------------- fused_add_rms_norm


def fused_add_rms_norm(input: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, epsilon: float) -> None:
    # vLLM: z = input + residual in the input dtype; residual <- z; input <- rms_norm(z) * weight
    z = input + residual
    residual.copy_(z)
    x = z.float()
    inv = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + epsilon)
    input.copy_((x * inv).to(input.dtype) * weight)


def _fused_add_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    tokens, hidden = case["num_tokens"], case["hidden_size"]
    return {
        "input": _rows(rng, tokens, hidden, case["dtype"]),
        "residual": rng.randn((tokens, hidden), case["dtype"]),
        "weight": rng.randn((hidden,), case["dtype"]),
        "epsilon": case["epsilon"],
    }


FUSED_ADD_RMS_NORM = vllm_spec(
    name="fused_add_rms_norm",
    category="normalization",
    description=(
        "In-place residual add + RMSNorm: residual <- input + residual (in the input dtype); "
        "input <- (residual * rsqrt(mean(residual^2) + epsilon)).to(dtype) * weight (fp32 variance). "
        "Both `input` and `residual` are outputs."
    ),
    reference_impl=fused_add_rms_norm,
    make_inputs=_fused_add_inputs,
    cases={
        "smoke": [
            {"num_tokens": 3, "hidden_size": 33, "dtype": "float32", "epsilon": 1e-6},
            {"num_tokens": 5, "hidden_size": 64, "dtype": "float16", "epsilon": 1e-5},
        ],
        "full": product(
            num_tokens=[1, 71, 128, 1024, 5333],
            hidden_size=[32, 497, 512, 4096, 8192],
            dtype=FLOATS,
            epsilon=[1e-6, 1e-5, 1e-4],
        ),
        "edge": [
            {"num_tokens": 7, "hidden_size": 769, "dtype": "bfloat16", "epsilon": 1e-6},
            {"num_tokens": 1, "hidden_size": 8, "dtype": "float16", "epsilon": 1e-6},
        ],
        "perf": [
            {"num_tokens": 16384, "hidden_size": 8192, "dtype": "bfloat16", "epsilon": 1e-6},
            {"num_tokens": 4096, "hidden_size": 4096, "dtype": "float16", "epsilon": 1e-6},
        ],
    },
    fidelity=(
        "vLLM csrc/layernorm_kernels.cu fused_add_rms_norm semantics (add rounded to the input dtype, fp32 "
        "variance) as in RMSNorm.forward_native with residual. Upstream grid (225 cases); upstream compares only "
        "`input`, we also compare the updated `residual`; both with NORM (atol=rtol=1e-2, as vLLM's test_layernorm), "
        + kept_looser(
            "our Triton reference solution on 5 of 236 full case-seeds (1 of 290816 elements at [71, 4096] fp16) and the reference on the GPU against the host on 6 of 236"
        )
        + "."
    ),
    returns=False,
    mutates=("input", "residual"),
    checkers=(NORM, NORM),
    cost=bytes_cost(lambda c, i: 5.0 * i["input"].numel()),
)


# ---------------------------------------------------------------- rms_norm + dynamic per-token quant

# scales of the fused norm+quant ops are max|y|/qmax of a 16-bit y: one 16-bit ulp of y (up to 2^-7
# relative for bf16) separates legitimate roundings of y, so they are compared at rtol 1e-2
FUSED_SCALE_CLOSE = close(1e-8, 1e-2)


def _quant_limits(quant_dtype: torch.dtype) -> tuple[float, float, float]:
    if quant_dtype == torch.int8:
        return -128.0, 127.0, torch.finfo(torch.float32).eps
    return -FP8_MAX, FP8_MAX, FP8_MIN_SCALE


def _rms_then_cast(
    input: torch.Tensor, weight: torch.Tensor, epsilon: float, residual: torch.Tensor | None
) -> torch.Tensor:
    x = input.float()
    if residual is not None:
        x = x + residual.float()
        residual.copy_(x.to(residual.dtype))
    inv = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + epsilon)
    return (x * inv).to(input.dtype) * weight


def _quantise(values: torch.Tensor, scales: torch.Tensor, quant_dtype: torch.dtype) -> torch.Tensor:
    lo, hi, _ = _quant_limits(quant_dtype)
    y = values / scales
    if quant_dtype == torch.int8:
        y = y.round()
    return y.clamp(lo, hi).to(quant_dtype)


def rms_norm_dynamic_per_token_quant(
    input: torch.Tensor,
    weight: torch.Tensor,
    epsilon: float,
    quant_dtype: torch.dtype,
    scale_ub: torch.Tensor | None = None,
    residual: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    y = _rms_then_cast(input, weight, epsilon, residual).float()
    _, hi, min_scale = _quant_limits(quant_dtype)
    amax = y.abs().amax(dim=-1, keepdim=True)
    if scale_ub is not None:
        amax = amax.clamp(max=scale_ub)
    scales = (amax / hi).clamp(min=min_scale)
    return _quantise(y, scales, quant_dtype), scales


def _dyn_quant_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    tokens, hidden, dtype = case["tokens"], case["hidden_size"], case["dtype"]
    return {
        "input": rng.randn((tokens, hidden), dtype),
        "weight": rng.randn((hidden,), dtype),
        "epsilon": case["epsilon"],
        "quant_dtype": dt(case["quant_dtype"]),
        "scale_ub": None,
        "residual": rng.randn((tokens, hidden), dtype) if case["use_residual"] else None,
    }


RMS_NORM_DYNAMIC_PER_TOKEN_QUANT = vllm_spec(
    name="rms_norm_dynamic_per_token_quant",
    category="quantization",
    description=(
        "RMSNorm (optionally after adding `residual`, which is then updated in place to input + residual) "
        "followed by dynamic per-token quantisation: scale[t] = max|y[t]| / qmax (clamped by scale_ub when "
        "given, and from below), q = round(y / scale) saturated to the quantised dtype. Returns (q [T, H], "
        "scales [T, 1] fp32)."
    ),
    reference_impl=rms_norm_dynamic_per_token_quant,
    make_inputs=_dyn_quant_inputs,
    cases={
        "smoke": [
            {
                "tokens": 3,
                "hidden_size": 64,
                "dtype": "float16",
                "quant_dtype": "int8",
                "epsilon": 1e-6,
                "use_residual": True,
            },
            {
                "tokens": 2,
                "hidden_size": 32,
                "dtype": "bfloat16",
                "quant_dtype": "int8",
                "epsilon": 1e-6,
                "use_residual": False,
            },
        ],
        "full": product(
            tokens=[1, 128, 1024, 5333],
            hidden_size=[32, 512, 4096],
            dtype=["float16", "bfloat16"],
            quant_dtype=["int8"],
            epsilon=[1e-6],
            use_residual=[False, True],
        ),
        "edge": [
            {
                "tokens": 7,
                "hidden_size": 769,
                "dtype": "float16",
                "quant_dtype": "int8",
                "epsilon": 1e-6,
                "use_residual": True,
            },
            {
                "tokens": 5,
                "hidden_size": 128,
                "dtype": "bfloat16",
                "quant_dtype": "float8_e4m3fn",
                "epsilon": 1e-6,
                "use_residual": False,
            },
        ],
        "perf": [
            {
                "tokens": 8192,
                "hidden_size": 8192,
                "dtype": "bfloat16",
                "quant_dtype": "int8",
                "epsilon": 1e-6,
                "use_residual": True,
            },
        ],
    },
    fidelity=(
        "vLLM tests/kernels/core/test_fused_quant_layernorm.py formulation: RMSNorm.forward_native (residual "
        "added in fp32, stored back in the input dtype) then ref_dynamic_per_token_quant from "
        "tests/kernels/quant_utils.py (scale = amax/qmax, q = round-half-even(y/scale)). int8 output compared "
        "within 1 LSB (as upstream and vLLM), scales and residual by " + at_upstream_rule(0, 92) + ". "
        "FP8 variant assumed: e4m3fn, max 448 (edge tier only; the per-token fp8 path divides by the scale)."
    ),
    returns=True,
    mutates=("residual",),
    checkers=(int_within(1), UPSTREAM, UPSTREAM),
    cost=bytes_cost(lambda c, i: 6.0 * i["input"].numel()),
)


# ---------------------------------------------------------------- rms_norm + per-block quant


def rms_norm_per_block_quant(
    input: torch.Tensor,
    weight: torch.Tensor,
    epsilon: float,
    quant_dtype: torch.dtype,
    group_size: list,
    scale_ub: torch.Tensor | None = None,
    residual: torch.Tensor | None = None,
    is_scale_transposed: bool = False,
) -> tuple[torch.Tensor, torch.Tensor]:
    tokens, hidden = input.shape[0], input.shape[-1]
    group = int(group_size[1])
    y = _rms_then_cast(input, weight, epsilon, residual)
    grouped = y.reshape(tokens, hidden // group, group).float()
    _, hi, min_scale = _quant_limits(quant_dtype)
    amax = grouped.abs().amax(dim=-1)
    if scale_ub is not None:
        amax = amax.clamp(max=scale_ub)
    scales = (amax * (1.0 / hi)).clamp(min=min_scale)
    q = _quantise(grouped, scales[:, :, None], quant_dtype).reshape(input.shape)
    if is_scale_transposed:
        # vLLM allocates [groups, tokens] and hands back its transpose (column-major scales)
        scales = scales.t().contiguous().t()
    return q, scales


def _block_quant_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    tokens, hidden = case["input"]
    return {
        "input": rng.randn((tokens, hidden), case.get("dtype", "float16")),
        "weight": rng.randn((hidden,), case.get("dtype", "float16")),
        "epsilon": case["epsilon"],
        "quant_dtype": dt(case["quant_dtype"]),
        "group_size": list(case["group_size"]),
        "scale_ub": None,
        "residual": rng.randn((tokens, hidden), case.get("dtype", "float16")) if case.get("use_residual") else None,
        "is_scale_transposed": case["is_scale_transposed"],
    }


def _block_quant_compare(out: Any, ref: Any, case: Any, inputs: Any):
    q_check = int_within(1) if inputs["quant_dtype"] == torch.int8 else fp8_within_one_step
    return per_output(q_check, FUSED_SCALE_CLOSE, NORM)(out, ref, case, inputs)


RMS_NORM_PER_BLOCK_QUANT = vllm_spec(
    name="rms_norm_per_block_quant",
    category="quantization",
    description=(
        "RMSNorm (optionally after a residual add that updates `residual` in place) followed by per-group "
        "dynamic quantisation along the hidden dimension in groups of group_size[1] columns: "
        "scale[t, g] = max|y[t, g*G:(g+1)*G]| / qmax (clamped from below), q = y / scale (rounded for int8), "
        "saturated. Returns (q [T, H] in quant_dtype, scales [T, H/G] fp32, column-major storage when "
        "is_scale_transposed)."
    ),
    reference_impl=rms_norm_per_block_quant,
    make_inputs=_block_quant_inputs,
    cases={
        "smoke": [
            {
                "input": [2, 128],
                "epsilon": 1e-6,
                "quant_dtype": "int8",
                "group_size": [64, 64],
                "is_scale_transposed": False,
            },
            {
                "input": [3, 128],
                "epsilon": 1e-5,
                "quant_dtype": "int8",
                "group_size": [128, 128],
                "is_scale_transposed": True,
                "use_residual": True,
            },
        ],
        "full": [
            c
            for c in product(
                input=[(1, 128), (128, 256), (1024, 4096), (4096, 8192)],
                epsilon=[1e-5, 1e-6],
                quant_dtype=["int8", "float8_e4m3fn"],
                group_size=[(128, 128), (64, 64)],
                is_scale_transposed=[False, True],
            )
            if c["input"][1] % c["group_size"][1] == 0
        ],
        "edge": [
            {
                "input": [7, 384],
                "epsilon": 1e-6,
                "quant_dtype": "float8_e4m3fn",
                "group_size": [1, 128],
                "is_scale_transposed": False,
                "use_residual": True,
                "dtype": "bfloat16",
            },
        ],
        "perf": [
            {
                "input": [8192, 7168],
                "epsilon": 1e-6,
                "quant_dtype": "float8_e4m3fn",
                "group_size": [1, 128],
                "is_scale_transposed": True,
                "dtype": "bfloat16",
            },
        ],
    },
    fidelity=(
        "Formulation of vLLM's own baseline for this kernel (rms_norm_per_block_quant helion/torch baseline in "
        "vLLM: fp32 residual add, rms, cast to input dtype, times weight, per-group amax/qmax with min clamp, "
        "divide, round for int8, clamp). Upstream compares q bit-exactly; we allow 1 LSB (int8) / one e4m3 step "
        "(fp8, variant e4m3fn max 448) since q is a rounding of a division, scales at rtol 1e-2 (one 16-bit ulp "
        "of y), residual with NORM: "
        + kept_looser(
            "the reference on the GPU against itself on the host on 34 of 98 full case-seeds with q bit-exact and "
            "scales and residual at upstream's rule (7 of 4194304 int8 codes differ at [1024, 4096])"
        )
        + "."
    ),
    returns=True,
    mutates=("residual",),
    compare=_block_quant_compare,
    cost=bytes_cost(lambda c, i: 6.0 * i["input"].numel()),
)


# ---------------------------------------------------------------- rotary embedding


def rope_cache(
    max_position: int, rot_dim: int, dtype: torch.dtype, device: torch.device, base: float = 10000.0
) -> torch.Tensor:
    """vLLM's cos_sin_cache: [max_position, rot_dim] = cat(cos, sin) over rot_dim/2 frequencies."""
    inv_freq = 1.0 / (base ** (torch.arange(0, rot_dim, 2, dtype=torch.float32, device=device) / rot_dim))
    freqs = torch.arange(max_position, dtype=torch.float32, device=device)[:, None] * inv_freq[None, :]
    return torch.cat([freqs.cos(), freqs.sin()], dim=-1).to(dtype)


def _rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, is_neox: bool) -> torch.Tensor:
    """x [T, H, rot_dim], cos/sin [T, 1, rot_dim/2]."""
    half = cos.shape[-1]
    if is_neox:
        x1, x2 = x[..., :half], x[..., half:]
        return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return torch.stack([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).flatten(-2)


def rotary_embedding(
    positions: torch.Tensor,
    query: torch.Tensor,
    key: torch.Tensor | None,
    head_size: int,
    cos_sin_cache: torch.Tensor,
    is_neox: bool,
) -> None:
    # computed in fp32 and rounded once (vLLM's kernel rounds each product in the tensor dtype; the
    # comparison's atol absorbs that difference)
    rot_dim = cos_sin_cache.shape[1]
    pos = positions.reshape(-1)
    cache = cos_sin_cache[pos].float()
    cos, sin = cache[:, None, : rot_dim // 2], cache[:, None, rot_dim // 2 :]
    for t in (query, key):
        if t is None:
            continue
        heads = t.reshape(pos.numel(), -1, head_size).float()
        heads[..., :rot_dim] = _rotate(heads[..., :rot_dim], cos, sin, is_neox)
        t.copy_(heads.reshape(t.shape).to(t.dtype))


def _rope_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    tokens, cache_len = case["shape_pair"]
    heads, head_size, dtype = case["num_heads"], case["head_size"], dt(case["dtype"])
    rot_dim = case.get("rot_dim", head_size)
    layout = case.get("layout", "thd")
    shape = (tokens, heads, head_size) if layout == "thd" else (tokens, heads * head_size)
    return {
        "positions": rng.randint(0, cache_len, (tokens,), "int64"),
        "query": rng.randn(shape, dtype),
        "key": None if case["key_is_none"] else rng.randn(shape, dtype),
        "head_size": head_size,
        "cos_sin_cache": rope_cache(cache_len, rot_dim, dtype, rng.device),
        "is_neox": case["is_neox"],
    }


ROTARY_EMBEDDING = vllm_spec(
    name="rotary_embedding",
    category="elementwise",
    description=(
        "In-place rotary position embedding on query and (optional) key, [T, H, D] or [T, H*D]. "
        "cos_sin_cache is [max_position, rot_dim] = cat(cos, sin); only the first rot_dim channels of each head "
        "rotate. is_neox: rotate halves (x1 = x[:rot/2], x2 = x[rot/2:]); otherwise GPT-J even/odd pairs. "
        "x1' = x1*cos - x2*sin, x2' = x2*cos + x1*sin with cos/sin = cache[positions[t]]."
    ),
    reference_impl=rotary_embedding,
    make_inputs=_rope_inputs,
    cases={
        "smoke": [
            {
                "shape_pair": [5, 32],
                "num_heads": 2,
                "head_size": 32,
                "dtype": "float32",
                "key_is_none": False,
                "is_neox": True,
            },
            {
                "shape_pair": [3, 16],
                "num_heads": 3,
                "head_size": 16,
                "dtype": "float16",
                "key_is_none": True,
                "is_neox": False,
            },
        ],
        "full": product(
            shape_pair=UPSTREAM_MN,
            num_heads=[1, 4, 16],
            head_size=[32, 64],
            dtype=FLOATS,
            key_is_none=[True, False],
            is_neox=[True, False],
        ),
        "edge": [
            {
                "shape_pair": [7, 64],
                "num_heads": 5,
                "head_size": 64,
                "rot_dim": 32,
                "dtype": "float16",
                "key_is_none": False,
                "is_neox": True,
            },
            {
                "shape_pair": [9, 64],
                "num_heads": 3,
                "head_size": 80,
                "dtype": "bfloat16",
                "key_is_none": False,
                "is_neox": False,
                "layout": "flat",
            },
        ],
        "perf": [
            {
                "shape_pair": [16384, 32768],
                "num_heads": 32,
                "head_size": 128,
                "dtype": "bfloat16",
                "key_is_none": False,
                "is_neox": True,
            },
        ],
    },
    fidelity=(
        "vLLM csrc/pos_encoding_kernels.cu semantics (cache row = cat(cos, sin) over rot_dim = cache.size(1); "
        "neox halves vs GPT-J pairs; arithmetic in the tensor dtype) as RotaryEmbedding.forward_native. "
        "Upstream's test builds a [cache_len, 2, head_size] cache (so vLLM reads rot_dim = 2); we use vLLM's "
        "documented [max_pos, rot_dim] cache with the upstream grid (360 cases). Reference in fp32, rounded once; "
        "Compared by " + at_upstream_rule(410, 410) + "."
    ),
    returns=False,
    mutates=("query", "key"),
    checkers=(UPSTREAM, UPSTREAM),
    cost=bytes_cost(lambda c, i: 6.0 * i["query"].numel() * (1 if i["key"] is None else 2)),
)


# ---------------------------------------------------------------- fused qk norm + rope


def fused_qk_norm_rope(
    qkv: torch.Tensor,
    num_heads_q: int,
    num_heads_k: int,
    num_heads_v: int,
    head_dim: int,
    eps: float,
    q_weight: torch.Tensor,
    k_weight: torch.Tensor,
    cos_sin_cache: torch.Tensor,
    is_neox: bool,
    position_ids: torch.Tensor,
) -> None:
    tokens = qkv.shape[0]
    heads = qkv.reshape(tokens, num_heads_q + num_heads_k + num_heads_v, head_dim).float()
    qk = heads[:, : num_heads_q + num_heads_k]
    inv = torch.rsqrt(qk.pow(2).mean(dim=-1, keepdim=True) + eps)
    weight = torch.cat([q_weight.float().expand(num_heads_q, head_dim), k_weight.float().expand(num_heads_k, head_dim)])
    normed = qk * inv * weight
    cache = cos_sin_cache[position_ids.reshape(-1)].float()
    half = cos_sin_cache.shape[1] // 2
    rotated = _rotate(normed, cache[:, None, :half], cache[:, None, half:], is_neox)
    out = heads.clone()
    out[:, : num_heads_q + num_heads_k] = rotated
    qkv.copy_(out.reshape(qkv.shape).to(qkv.dtype))


def _qk_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    nq, nk, nv = case["heads"]
    d, tokens, dtype = case["head_dim"], case["seq_len"], dt(case["dtype"])
    max_pos = max(tokens, 4096)
    return {
        "qkv": rng.randn((tokens, (nq + nk + nv) * d), dtype),
        "num_heads_q": nq,
        "num_heads_k": nk,
        "num_heads_v": nv,
        "head_dim": d,
        "eps": 1e-5,
        "q_weight": rng.randn((d,), dtype),
        "k_weight": rng.randn((d,), dtype),
        "cos_sin_cache": rope_cache(max_pos, d, dtype, rng.device),
        "is_neox": case["is_neox"],
        "position_ids": rng.randint(0, max_pos, (tokens,), "int64"),
    }


FUSED_QK_NORM_ROPE = vllm_spec(
    name="fused_qk_norm_rope",
    category="normalization",
    description=(
        "In place on qkv [T, (nq+nk+nv)*head_dim]: per-head RMSNorm of every q head (weight q_weight) and k head "
        "(weight k_weight) over head_dim, then rotary embedding of those heads with cos_sin_cache "
        "[max_pos, head_dim] = cat(cos, sin) at position_ids (neox halves or GPT-J pairs); v heads untouched. "
        "Computed in fp32, rounded once."
    ),
    reference_impl=fused_qk_norm_rope,
    make_inputs=_qk_inputs,
    cases={
        "smoke": [
            {"seq_len": 3, "heads": [2, 1, 1], "head_dim": 64, "dtype": "float16", "is_neox": True},
            {"seq_len": 2, "heads": [2, 2, 2], "head_dim": 64, "dtype": "float16", "is_neox": False},
        ],
        "full": product(
            seq_len=[1, 71, 128, 1024, 5333],
            heads=[(4, 4, 4), (16, 16, 16), (32, 16, 8)],
            head_dim=[64, 128],
            dtype=["float16", "bfloat16"],
            is_neox=[False, True],
        ),
        "edge": [{"seq_len": 1, "heads": [1, 1, 1], "head_dim": 128, "dtype": "bfloat16", "is_neox": True}],
        "perf": [{"seq_len": 16384, "heads": [32, 8, 8], "head_dim": 128, "dtype": "bfloat16", "is_neox": True}],
    },
    fidelity=(
        "Composition of vLLM's RMSNorm and RotaryEmbedding semantics per head (the fused kernel works in fp32 "
        "and rounds once; vLLM's test_fused_qk_norm_rope compares against the unfused forward_native ops). "
        "Upstream grid (120 cases) with a real cos/sin cache instead of upstream's randn cache; "
        + at_upstream_rule(0, 174)
        + "."
    ),
    returns=False,
    mutates=("qkv",),
    checkers=(UPSTREAM,),
    cost=bytes_cost(lambda c, i: 10.0 * i["qkv"].numel()),
)

SPECS = [
    RMS_NORM,
    FUSED_ADD_RMS_NORM,
    RMS_NORM_DYNAMIC_PER_TOKEN_QUANT,
    RMS_NORM_PER_BLOCK_QUANT,
    ROTARY_EMBEDDING,
    FUSED_QK_NORM_ROPE,
]
