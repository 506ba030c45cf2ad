"""Group-B ATen losses: binary_cross_entropy_with_logits, huber_loss, margin_ranking_loss, soft_margin_loss.

Full tiers are upstream KernelGenBench's test functions for each loss (functional and `.out` overloads,
shapes (2, 3), (128, 256), (512, 512) or (1024, 256), three dtypes, reduction 0/1/2 = none/mean/sum and the
loss's own parameters), compared as upstream with R = 1. `reduction` is an int: 0 none, 1 mean, 2 sum.
"""

from __future__ import annotations

from typing import Any

from operators.catalog.aten.group_b_helpers import (
    aten_overload,
    empty,
    float64_reference,
    io_cost,
    per_element,
    randn,
    schema_text,
)
from operators.catalog.common import product
from operators.spec import Inputs, OperatorSpec, Rng

LOSS_SHAPES = [(2, 3), (128, 256), (512, 512)]
LOSS_DTYPES = ["float32", "float16", "bfloat16"]  # upstream's order for these tests
PERF_LOSS = [(16384, 4096), (4096, 14336)]
REDUCTION_NOTE = "reduction: 0 = none (element-wise output), 1 = mean, 2 = sum (0-d output)."


def _with_out(inputs: Inputs, case: dict[str, Any], shape: list[int]) -> Inputs:
    inputs["overload"] = case.get("overload", "default")
    if inputs["overload"] == "out":
        out_shape = shape if case["reduction"] == 0 else []
        inputs["out"] = empty(out_shape, case["dtype"], inputs["self"].device)
    return inputs


def _call(op: str, inputs: Inputs, *args: Any) -> Any:
    if inputs["overload"] == "out":
        aten_overload(op, "out")(*args, out=inputs["out"])
        return inputs["out"]
    return aten_overload(op)(*args)


def _bce_invoke(impl: Any, inputs: Inputs) -> Any:
    return _call(
        "binary_cross_entropy_with_logits",
        inputs,
        inputs["self"],
        inputs["target"],
        inputs["weight"],
        inputs["pos_weight"],
        inputs["reduction"],
    )


def _bce_inputs(case: dict[str, Any], rng: Rng) -> Inputs:
    shape, dtype = case["shape"], case["dtype"]
    x = randn(rng, shape, dtype, case.get("layout", "contiguous"), scale=case.get("scale", 1.0))
    target = rng.uniform(shape, 0.0, 1.0, dtype)
    weight_shape = case.get("weight_shape", shape)
    weight = rng.uniform(weight_shape, 0.5, 1.5, dtype) if case.get("use_weight") else None
    pos_weight = (
        rng.uniform(case.get("pos_weight_shape", shape), 0.5, 1.5, dtype) if case.get("use_pos_weight") else None
    )
    inputs = {"self": x, "target": target, "weight": weight, "pos_weight": pos_weight, "reduction": case["reduction"]}
    return _with_out(inputs, case, shape)


BCE_WITH_LOGITS = OperatorSpec(
    id="aten::binary_cross_entropy_with_logits",
    category="loss",
    description="loss = -w * [pos_weight * y * log(sigmoid(x)) + (1 - y) * log(1 - sigmoid(x))], element-wise, "
    "then reduced. weight and pos_weight are optional and broadcast against the input. " + REDUCTION_NOTE,
    signature=schema_text("binary_cross_entropy_with_logits", ["default", "out"]),
    entrypoints=("binary_cross_entropy_with_logits", "binary_cross_entropy_with_logits_out"),
    invoke=_bce_invoke,
    reference=float64_reference(_bce_invoke),
    cases={
        "smoke": [
            {"shape": [3, 33], "dtype": "float32", "reduction": 0, "use_weight": True, "use_pos_weight": True},
            {
                "shape": [5, 17],
                "dtype": "float16",
                "reduction": 1,
                "use_weight": False,
                "use_pos_weight": True,
                "overload": "out",
            },
            {"shape": [4, 9], "dtype": "bfloat16", "reduction": 2, "use_weight": True, "use_pos_weight": False},
        ],
        "full": [
            dict(c, overload=o)
            for o in ("default", "out")
            for c in product(
                shape=LOSS_SHAPES,
                dtype=LOSS_DTYPES,
                reduction=[0, 1, 2],
                use_weight=[False, True],
                use_pos_weight=[False, True],
            )
        ],
        "edge": [
            {
                "shape": [64, 300],
                "dtype": "float32",
                "reduction": 0,
                "use_weight": False,
                "use_pos_weight": False,
                "scale": 60.0,
            },
            {
                "shape": [300, 64],
                "dtype": "float32",
                "reduction": 1,
                "use_weight": True,
                "use_pos_weight": True,
                "weight_shape": [64],
                "pos_weight_shape": [64],
                "layout": "transposed",
            },
            {"shape": [0, 4], "dtype": "float32", "reduction": 0, "use_weight": False, "use_pos_weight": False},
            {
                "shape": [7, 5, 3],
                "dtype": "bfloat16",
                "reduction": 1,
                "use_weight": False,
                "use_pos_weight": True,
                "pos_weight_shape": [3],
            },
        ],
        "perf": [
            {"shape": list(s), "dtype": d, "reduction": r, "use_weight": False, "use_pos_weight": False}
            for s in PERF_LOSS
            for d, r in (("bfloat16", 1), ("float32", 0))
        ],
    },
    make_inputs=_bce_inputs,
    reduce_dim=lambda case: 1,
    cost=io_cost(_bce_invoke, per_element(8.0)),
    mutates=("out",),
    mc=True,
    fidelity="Reference: torch's binary_cross_entropy_with_logits in float64, rounded once to the dtype (torch's "
    "own float16 evaluation is outside the float16 tolerance of the float64 value in 34 of the 216 full "
    "cases, so a kernel computing in fp32 would fail against it). Full tier = upstream's _tensor "
    "and _out test functions (3 shapes x 3 dtypes x 3 reductions x weight yes/no x pos_weight yes/no) = "
    "216 cases, "
    "R = 1 as upstream.",
    notes="Use the stable form (1 - y) * x + (1 + (pw - 1) * y) * (log1p(exp(-|x|)) + max(-x, 0)), computed in "
    "float32. Mean divides by the number of elements. " + REDUCTION_NOTE,
)

# ---------------------------------------------------------------- huber_loss


def _pair_inputs(case: dict[str, Any], rng: Rng) -> Inputs:
    shape, dtype = case["shape"], case["dtype"]
    x = randn(rng, shape, dtype, case.get("layout", "contiguous"), scale=case.get("scale", 1.0))
    target = randn(rng, shape, dtype, scale=case.get("scale", 1.0))
    return _with_out(
        {"self": x, "target": target, "reduction": case["reduction"], "delta": case.get("delta", 1.0)}, case, shape
    )


def _huber_invoke(impl: Any, inputs: Inputs) -> Any:
    return _call("huber_loss", inputs, inputs["self"], inputs["target"], inputs["reduction"], inputs["delta"])


HUBER_LOSS = OperatorSpec(
    id="aten::huber_loss",
    category="loss",
    description="Element-wise d = |x - y|; loss = 0.5 * d^2 if d < delta else delta * (d - 0.5 * delta); then "
    "reduced. " + REDUCTION_NOTE,
    signature=schema_text("huber_loss", ["default", "out"]),
    entrypoints=("huber_loss", "huber_loss_out"),
    invoke=_huber_invoke,
    reference=float64_reference(_huber_invoke),
    cases={
        "smoke": [
            {"shape": [3, 33], "dtype": "float32", "reduction": 0, "delta": 0.5},
            {"shape": [5, 17], "dtype": "float16", "reduction": 1, "delta": 1.0, "overload": "out"},
            {"shape": [4, 9], "dtype": "bfloat16", "reduction": 2, "delta": 2.0},
        ],
        "full": [
            dict(c, overload=o)
            for o in ("default", "out")
            for c in product(shape=LOSS_SHAPES, dtype=LOSS_DTYPES, reduction=[0, 1, 2], delta=[0.5, 1.0, 2.0])
        ],
        "edge": [
            {"shape": [300, 64], "dtype": "float32", "reduction": 0, "delta": 1.0, "layout": "transposed"},
            {"shape": [64, 300], "dtype": "float16", "reduction": 1, "delta": 0.01, "scale": 100.0},
            {"shape": [], "dtype": "float32", "reduction": 0, "delta": 1.0},
            {"shape": [0, 4], "dtype": "float32", "reduction": 2, "delta": 1.0},
        ],
        "perf": [
            {"shape": list(s), "dtype": d, "reduction": r, "delta": 1.0}
            for s in PERF_LOSS
            for d, r in (("bfloat16", 1), ("float32", 0))
        ],
    },
    make_inputs=_pair_inputs,
    reduce_dim=lambda case: 1,
    cost=io_cost(_huber_invoke, per_element(5.0)),
    mutates=("out",),
    mc=True,
    fidelity="Reference: torch's huber_loss in float64, rounded once to the dtype (as the other losses; torch's "
    "native evaluation agrees with it in all 162 full cases). Full tier = upstream's "
    "test_huber_loss_tensor and _out (3 shapes x 3 dtypes x 3 reductions x delta {0.5, 1, 2}) = 162 "
    "cases, R = 1 as upstream.",
    notes="The sum of an empty input is 0; its mean is NaN (0/0), as torch. " + REDUCTION_NOTE,
)

# ---------------------------------------------------------------- margin_ranking_loss


def _margin_inputs(case: dict[str, Any], rng: Rng) -> Inputs:
    shape, dtype = case["shape"], case["dtype"]
    x1 = randn(rng, shape, dtype, case.get("layout", "contiguous"))
    x2 = randn(rng, shape, dtype)
    target = (rng.randint(0, 2, case.get("target_shape", shape), "int8") * 2 - 1).to(x1.dtype)
    return {"input1": x1, "input2": x2, "target": target, "margin": case["margin"], "reduction": case["reduction"]}


def _margin_invoke(impl: Any, inputs: Inputs) -> Any:
    return aten_overload("margin_ranking_loss")(
        inputs["input1"], inputs["input2"], inputs["target"], inputs["margin"], inputs["reduction"]
    )


MARGIN_RANKING_LOSS = OperatorSpec(
    id="aten::margin_ranking_loss",
    category="loss",
    description="loss = max(0, -target * (input1 - input2) + margin), element-wise (inputs broadcast), then reduced; "
    "target holds +1/-1. " + REDUCTION_NOTE,
    signature=schema_text("margin_ranking_loss", ["default"]),
    entrypoints=("margin_ranking_loss",),
    invoke=_margin_invoke,
    reference=float64_reference(_margin_invoke, main="input1"),
    cases={
        "smoke": [
            {"shape": [3, 33], "dtype": "float32", "margin": 0.5, "reduction": 0},
            {"shape": [5, 17], "dtype": "float16", "margin": 0.0, "reduction": 1},
            {"shape": [4, 9], "dtype": "bfloat16", "margin": 1.0, "reduction": 2},
        ],
        "full": product(
            shape=[(2, 3), (128, 256), (1024, 256)], dtype=LOSS_DTYPES, margin=[0.0, 0.5, 1.0], reduction=[0, 1, 2]
        ),
        "edge": [
            {"shape": [300, 64], "dtype": "float32", "margin": 0.5, "reduction": 0, "layout": "transposed"},
            {"shape": [64, 300], "dtype": "float16", "margin": 0.2, "reduction": 1, "target_shape": [300]},
            {"shape": [0, 3], "dtype": "float32", "margin": 0.5, "reduction": 2},
        ],
        "perf": [
            {"shape": list(s), "dtype": d, "margin": 0.5, "reduction": r}
            for s in PERF_LOSS
            for d, r in (("bfloat16", 1), ("float32", 0))
        ],
    },
    make_inputs=_margin_inputs,
    reduce_dim=lambda case: 1,
    cost=io_cost(_margin_invoke, per_element(4.0, "input1"), main="input1"),
    mc=True,
    fidelity="Reference: torch's margin_ranking_loss in float64, rounded once to the dtype (torch's float16 "
    "evaluation cancels badly near the margin: 9 of 81 full cases fall outside tolerance of the float64 "
    "value). Full tier = upstream's test_margin_ranking_loss_tensor "
    "(shapes (2, 3), (128, 256), (1024, 256) x 3 dtypes x margin {0, 0.5, 1} x 3 reductions) = 81 cases, "
    "R = 1.",
    notes="target may broadcast against the inputs. " + REDUCTION_NOTE,
)

# ---------------------------------------------------------------- soft_margin_loss


def _soft_margin_inputs(case: dict[str, Any], rng: Rng) -> Inputs:
    shape, dtype = case["shape"], case["dtype"]
    x = randn(rng, shape, dtype, case.get("layout", "contiguous"), scale=case.get("scale", 1.0))
    target = (rng.randint(0, 2, shape, "int8") * 2 - 1).to(x.dtype)
    return _with_out({"self": x, "target": target, "reduction": case["reduction"]}, case, shape)


def _soft_margin_invoke(impl: Any, inputs: Inputs) -> Any:
    return _call("soft_margin_loss", inputs, inputs["self"], inputs["target"], inputs["reduction"])


SOFT_MARGIN_LOSS = OperatorSpec(
    id="aten::soft_margin_loss",
    category="loss",
    description="loss = log(1 + exp(-target * x)) element-wise (target holds +1/-1), then reduced. " + REDUCTION_NOTE,
    signature=schema_text("soft_margin_loss", ["default", "out"]),
    entrypoints=("soft_margin_loss", "soft_margin_loss_out"),
    invoke=_soft_margin_invoke,
    reference=float64_reference(_soft_margin_invoke),
    cases={
        "smoke": [
            {"shape": [3, 33], "dtype": "float32", "reduction": 0},
            {"shape": [5, 17], "dtype": "float16", "reduction": 1, "overload": "out"},
            {"shape": [4, 9], "dtype": "bfloat16", "reduction": 2},
        ],
        "full": [
            dict(c, overload=o)
            for o in ("default", "out")
            for c in product(shape=LOSS_SHAPES, dtype=LOSS_DTYPES, reduction=[0, 1, 2])
        ],
        "edge": [
            {"shape": [300, 64], "dtype": "float32", "reduction": 0, "layout": "transposed"},
            {"shape": [64, 300], "dtype": "float32", "reduction": 0, "scale": 50.0},
            {"shape": [0, 3], "dtype": "float32", "reduction": 1},
        ],
        "perf": [
            {"shape": list(s), "dtype": d, "reduction": r}
            for s in PERF_LOSS
            for d, r in (("bfloat16", 1), ("float32", 0))
        ],
    },
    make_inputs=_soft_margin_inputs,
    reduce_dim=lambda case: 1,
    cost=io_cost(_soft_margin_invoke, per_element(4.0)),
    mutates=("out",),
    mc=True,
    fidelity="Reference: torch's soft_margin_loss in float64, rounded once to the dtype (torch's float32 "
    "kernel computes log(1 + exp(-y*x)) naively and returns inf for y*x below about -88, measured in the "
    "edge case with |x| up to ~200). Full tier = upstream's test_soft_margin_loss_tensor and _out "
    "(3 shapes x 3 dtypes x 3 reductions) = 54 cases, R = 1.",
    notes="Compute log1p(exp(-y*x)) stably in float32 (large |x| occurs). " + REDUCTION_NOTE,
)

SPECS = [BCE_WITH_LOGITS, HUBER_LOSS, MARGIN_RANKING_LOSS, SOFT_MARGIN_LOSS]
