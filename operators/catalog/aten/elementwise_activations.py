"""Activation-function ATen operators (group A of the ATen catalog): hardsigmoid, mish, silu, prelu.

Full tiers reproduce upstream KernelGenBench's tests (test_ops_with_benchmark.py at fork HEAD
b1966bc, research/upstream_kgb.md §2.1).
"""

from __future__ import annotations

from typing import Any

import torch

from operators.catalog.aten.elementwise_support import (
    UNARY_FIDELITY,
    build_tensor,
    elementwise_spec,
    randn,
    unary_cases,
    unary_inputs,
    unary_invoke,
)
from operators.catalog.common import FLOAT_DTYPES, PERF_TOKEN_HIDDEN, POINTWISE_SHAPES, product
from operators.spec import Case, Inputs, OperatorSpec, Rng

UPSTREAM_DTYPES = ["float32", "float16", "bfloat16"]
PRELU_SHAPES = [(2, 3), (128, 256), (512, 512), (4, 8, 16), (2, 32, 16, 16), (2, 128, 64, 64)]


def _prelu_inputs(case: Case, rng: Rng) -> Inputs:
    shape, dtype = case["shape"], case["dtype"]
    x = build_tensor(
        rng, shape, dtype, randn(), layout=case.get("layout", "contiguous"), specials=case.get("specials", False)
    )
    weight_shape = [] if case["weight_kind"] == "scalar" else [shape[1] if len(shape) >= 2 else 1]
    return {"self": x, "weight": rng.randn(weight_shape, dtype)}


def _prelu_invoke(impl: Any, inputs: Inputs) -> Any:
    return torch.ops.aten.prelu.default(inputs["self"], inputs["weight"])


def _prelu_spec() -> OperatorSpec:
    full = product(shape=PRELU_SHAPES, dtype=UPSTREAM_DTYPES, weight_kind=["scalar", "per_channel"])
    smoke = [
        {"shape": [7, 5], "dtype": "float32", "weight_kind": "per_channel"},
        {"shape": [3, 33], "dtype": "float16", "weight_kind": "scalar"},
        {"shape": [2, 5, 17], "dtype": "bfloat16", "weight_kind": "per_channel"},
    ]
    edge = [
        {"shape": [4, 16, 9, 9], "dtype": "float32", "weight_kind": "per_channel", "layout": "transposed"},
        {"shape": [33, 65], "dtype": "float16", "weight_kind": "per_channel", "layout": "strided"},
        {"shape": [1023], "dtype": "float32", "weight_kind": "scalar"},
        {"shape": [3, 1, 257], "dtype": "bfloat16", "weight_kind": "per_channel"},
        {"shape": [0, 4], "dtype": "float32", "weight_kind": "per_channel"},
        {"shape": [4, 25], "dtype": "float32", "weight_kind": "scalar", "specials": True},
    ]
    perf = [
        {"shape": list(s), "dtype": d, "weight_kind": "per_channel"}
        for s in PERF_TOKEN_HIDDEN
        for d in ("bfloat16", "float16")
    ]
    return elementwise_spec(
        op="prelu",
        overloads=["default"],
        description="prelu(self, weight) = self where self >= 0, weight * self elsewhere; `weight` is 0-d (one "
        "slope) or has one slope per channel, channels being dim 1 of self.",
        invoke=_prelu_invoke,
        make_inputs=_prelu_inputs,
        category="elementwise",
        cases={"smoke": smoke, "full": full, "edge": edge, "perf": perf},
        flops=2,
        notes="weight has 0 dims or shape (C,) with C = self.shape[1] (1-d self: C = 1); broadcast it along dim 1. "
        "aten::prelu is a composite op (it reaches _prelu_kernel below autograd), so the harness registers "
        "the wrapper for the autograd key as well.",
        fidelity=UNARY_FIDELITY + " Full tier: 36 cases as upstream (6 shapes x 3 dtypes x scalar/per-channel weight).",
    )


def _silu_cases() -> dict[str, list[Case]]:
    return unary_cases(full_shapes=POINTWISE_SHAPES, variants=("default",), full_dtypes=FLOAT_DTYPES, specials=False)


SPECS: list[OperatorSpec] = [
    elementwise_spec(
        op="hardsigmoid",
        overloads=["default", "out"],
        description="hardsigmoid(x) = clamp(x / 6 + 1/2, 0, 1), elementwise.",
        invoke=unary_invoke("hardsigmoid"),
        make_inputs=unary_inputs(randn()),
        cases=unary_cases(
            full_shapes=[(2, 3), (128, 256), (1024, 1024)], variants=("default", "out"), full_dtypes=UPSTREAM_DTYPES
        ),
        flops=3,
        notes="Equivalently relu6(x + 3) / 6. NaN stays NaN. Compute in fp32 for fp16/bf16.",
        fidelity=UNARY_FIDELITY + " Full tier: 18 cases as upstream (hardsigmoid and hardsigmoid.out).",
    ),
    elementwise_spec(
        op="mish",
        overloads=["default", "out"],
        description="mish(x) = x * tanh(softplus(x)) = x * tanh(ln(1 + e^x)), elementwise.",
        invoke=unary_invoke("mish"),
        make_inputs=unary_inputs(randn()),
        cases=unary_cases(
            full_shapes=[(2, 3), (128, 256), (512, 1024)],
            variants=("default", "out"),
            full_dtypes=UPSTREAM_DTYPES,
            specials=False,
        ),
        flops=6,
        notes="softplus(x) should be computed stably (x for large x). Compute in fp32 for fp16/bf16.",
        fidelity=UNARY_FIDELITY + " Full tier: 18 cases as upstream (mish and mish.out).",
    ),
    elementwise_spec(
        op="silu",
        overloads=["default"],
        description="silu(x) = x * sigmoid(x) = x / (1 + e^-x), elementwise.",
        invoke=unary_invoke("silu"),
        make_inputs=unary_inputs(randn()),
        cases=_silu_cases(),
        flops=4,
        notes="Upstream calls torch.nn.functional.silu, which reaches aten::silu. Compute in fp32 for fp16/bf16.",
        fidelity=UNARY_FIDELITY + " Full tier: 18 cases = upstream's 36 minus its 18 silu_backward cases, which "
        "call aten::silu_backward (another operator) and so never test this one.",
    ),
    _prelu_spec(),
]
