"""Group-B ATen backward and layout operators: smooth_l1_loss_backward, log_sigmoid_backward, mish_backward,
softplus_backward, rrelu_with_noise_backward, reflection_pad1d_backward, upsample_nearest2d_backward,
select_backward, im2col.

Full tiers are upstream KernelGenBench's two test functions per operator (functional and `.out`/`.grad_input`
overload; research/upstream_kgb.md §2), with the same shapes, dtypes and parameters, compared with R = 1.
Preallocated result buffers are passed as the input named "out" whatever the schema calls them.
"""

from __future__ import annotations

from typing import Any

import torch

from operators.catalog.aten.group_b_helpers import (
    aten_overload,
    dtype_name,
    empty,
    float64_reference,
    io_cost,
    per_element,
    randn,
    schema_text,
)
from operators.catalog.common import product
from operators.spec import Cost, Inputs, OperatorSpec, Rng

BWD_SHAPES = [(2, 3), (128, 256), (512, 512)]
BWD_DTYPES = ["float32", "float16", "bfloat16"]  # upstream's order for these tests
PERF_ELEMENTWISE = [(4096, 14336), (16384, 4096)]


def _call(op: str, overload_name: str, out_kw: str, inputs: Inputs, *args: Any) -> Any:
    """Call the functional overload, or the out-variant writing into inputs["out"] (returned)."""
    if inputs["overload"] != "default":
        aten_overload(op, overload_name)(*args, **{out_kw: inputs["out"]})
        return inputs["out"]
    return aten_overload(op)(*args)


def _maybe_out(inputs: Inputs, case: dict[str, Any], shape: list[int], device: torch.device) -> Inputs:
    inputs["overload"] = case.get("overload", "default")
    if inputs["overload"] != "default":
        inputs["out"] = empty(shape, case["dtype"], device)
    return inputs


def _both_overloads(cases: list[dict[str, Any]], out_overload: str) -> list[dict[str, Any]]:
    return [dict(c, overload=o) for o in ("default", out_overload) for c in cases]


# ---------------------------------------------------------------- smooth_l1_loss_backward


def _smooth_l1_inputs(case: dict[str, Any], rng: Rng) -> Inputs:
    shape, dtype = case["shape"], case["dtype"]
    x = randn(rng, shape, dtype, case.get("layout", "contiguous"))
    target = randn(rng, shape, dtype)
    grad = randn(rng, shape if case["reduction"] == 0 else [], dtype)
    inputs = {
        "grad_output": grad,
        "self": x,
        "target": target,
        "reduction": case["reduction"],
        "beta": float(case["beta"]),
    }
    return _maybe_out(inputs, case, shape, x.device)


def _smooth_l1_invoke(impl: Any, inputs: Inputs) -> Any:
    return _call(
        "smooth_l1_loss_backward",
        "grad_input",
        "grad_input",
        inputs,
        inputs["grad_output"],
        inputs["self"],
        inputs["target"],
        inputs["reduction"],
        inputs["beta"],
    )


SMOOTH_L1_LOSS_BACKWARD = OperatorSpec(
    id="aten::smooth_l1_loss_backward",
    category="loss",
    description="Gradient of smooth_l1_loss w.r.t. self: with d = self - target, g = d / beta where |d| < beta, "
    "else sign(d); times grad_output (a 0-d tensor for reduction mean/sum, divided by numel for mean).",
    signature=schema_text("smooth_l1_loss_backward", ["default", "grad_input"]),
    entrypoints=("smooth_l1_loss_backward", "smooth_l1_loss_backward_grad_input"),
    invoke=_smooth_l1_invoke,
    cases={
        "smoke": [
            {"shape": [3, 33], "dtype": "float32", "reduction": 0, "beta": 0.5},
            {"shape": [5, 17], "dtype": "float16", "reduction": 1, "beta": 1.0, "overload": "grad_input"},
            {"shape": [4, 9], "dtype": "bfloat16", "reduction": 2, "beta": 2.0},
        ],
        "full": _both_overloads(
            product(shape=BWD_SHAPES, dtype=BWD_DTYPES, reduction=[0, 1, 2], beta=[0.5, 1.0, 2.0]), "grad_input"
        ),
        "edge": [
            {"shape": [300, 64], "dtype": "float32", "reduction": 0, "beta": 1.0, "layout": "transposed"},
            {"shape": [64, 300], "dtype": "float32", "reduction": 1, "beta": 0.0},
            {"shape": [0, 3], "dtype": "float32", "reduction": 2, "beta": 1.0},
        ],
        "perf": [
            {"shape": list(s), "dtype": d, "reduction": r, "beta": 1.0}
            for s in PERF_ELEMENTWISE
            for d, r in (("bfloat16", 1), ("float32", 0))
        ],
    },
    make_inputs=_smooth_l1_inputs,
    reduce_dim=lambda case: 1,
    cost=io_cost(_smooth_l1_invoke, per_element(4.0)),
    mutates=("out",),
    mc=True,
    fidelity="Reference is torch's smooth_l1_loss_backward. Full tier = upstream's _tensor and _grad_input tests "
    "(3 shapes x 3 dtypes x reduction {0, 1, 2} x beta {0.5, 1, 2}) = 162 cases, R = 1. Checked on CPU "
    "against a float64 evaluation cast back to the dtype.",
    notes="reduction: 0 none (grad_output has self's shape), 1 mean (grad_output is 0-d; divide by numel), "
    "2 sum (grad_output is 0-d). beta = 0 means pure L1 (gradient sign(d)).",
)

# ---------------------------------------------------------------- log_sigmoid_backward


def _log_sigmoid_inputs(case: dict[str, Any], rng: Rng) -> Inputs:
    shape, dtype = case["shape"], case["dtype"]
    x = randn(rng, shape, dtype, case.get("layout", "contiguous"), scale=case.get("scale", 1.0))
    grad = randn(rng, shape, dtype)
    # the real forward's scratch buffer on this device (exp(-|x|) on CPU, empty on CUDA)
    buffer = aten_overload("log_sigmoid_forward")(x)[1]
    return _maybe_out({"grad_output": grad, "self": x, "buffer": buffer}, case, shape, x.device)


def _log_sigmoid_invoke(impl: Any, inputs: Inputs) -> Any:
    return _call(
        "log_sigmoid_backward",
        "grad_input",
        "grad_input",
        inputs,
        inputs["grad_output"],
        inputs["self"],
        inputs["buffer"],
    )


def _log_sigmoid_reference(inputs: Inputs) -> Any:
    # d/dx log(sigmoid(x)) = sigmoid(-x); evaluated in float64 so it does not depend on the device's buffer format
    x, grad = inputs["self"], inputs["grad_output"]
    result = (grad.double() * torch.sigmoid(-x.double())).to(x.dtype)
    if inputs["overload"] != "default":
        inputs["out"].copy_(result)
        return inputs["out"]
    return result


LOG_SIGMOID_BACKWARD = OperatorSpec(
    id="aten::log_sigmoid_backward",
    category="elementwise",
    description="Gradient of log_sigmoid: grad_input = grad_output * sigmoid(-self). `buffer` is the forward's "
    "device-specific scratch tensor (exp(-|x|) on CPU, empty on CUDA) and must not be relied on.",
    signature=schema_text("log_sigmoid_backward", ["default", "grad_input"]),
    entrypoints=("log_sigmoid_backward", "log_sigmoid_backward_grad_input"),
    invoke=_log_sigmoid_invoke,
    reference=_log_sigmoid_reference,
    cases={
        "smoke": [
            {"shape": [3, 33], "dtype": "float32"},
            {"shape": [5, 17], "dtype": "float16", "overload": "grad_input"},
            {"shape": [4, 9], "dtype": "bfloat16"},
        ],
        "full": _both_overloads(product(shape=BWD_SHAPES, dtype=BWD_DTYPES), "grad_input"),
        "edge": [
            {"shape": [300, 64], "dtype": "float32", "layout": "transposed"},
            {"shape": [64, 300], "dtype": "float32", "scale": 100.0},
            {"shape": [], "dtype": "float16"},
        ],
        "perf": [{"shape": list(s), "dtype": d} for s in PERF_ELEMENTWISE for d in ("bfloat16", "float32")],
    },
    make_inputs=_log_sigmoid_inputs,
    reduce_dim=lambda case: 1,
    cost=io_cost(_log_sigmoid_invoke, per_element(4.0)),
    mutates=("out",),
    mc=True,
    fidelity="Reference: grad_output * sigmoid(-self) in float64, cast to the dtype. Not torch's CPU kernel: it "
    "reads `buffer` as exp(-|x|), while CUDA ignores it; upstream passes buffer = sigmoid(self), which "
    "makes the CPU kernel wrong by up to 0.98 (measured) while CUDA is right. We pass the real forward's "
    "buffer (log_sigmoid_forward on the device); with it torch's CPU kernel matches our formula to "
    "2.4e-7 in float32. Full tier = upstream's _tensor and _grad_input tests (3 shapes x 3 dtypes) = 18.",
    notes="Compute from `self` only: grad_output * sigmoid(-self), stably in float32 (e.g. e = exp(-|x|); "
    "x < 0: 1 - e/(1+e)... or 1/(1+exp(x))). Ignore `buffer`: its contents differ between devices.",
)

# ---------------------------------------------------------------- mish_backward


def _grad_self_inputs(case: dict[str, Any], rng: Rng) -> Inputs:
    shape, dtype = case["shape"], case["dtype"]
    grad = randn(rng, shape, dtype)
    x = randn(rng, shape, dtype, case.get("layout", "contiguous"), scale=case.get("scale", 1.0))
    inputs = {"grad_output": grad, "self": x, "beta": case.get("beta"), "threshold": case.get("threshold")}
    return _maybe_out(inputs, case, shape, x.device)


def _mish_invoke(impl: Any, inputs: Inputs) -> Any:
    return aten_overload("mish_backward")(inputs["grad_output"], inputs["self"])


MISH_BACKWARD = OperatorSpec(
    id="aten::mish_backward",
    category="elementwise",
    description="Gradient of mish(x) = x * tanh(softplus(x)): grad_input = grad_output * (tanh(sp) + x * "
    "sigmoid(x) * (1 - tanh(sp)^2)) with sp = softplus(x) = log1p(exp(x)).",
    signature=schema_text("mish_backward", ["default"]),
    entrypoints=("mish_backward",),
    invoke=_mish_invoke,
    cases={
        "smoke": [
            {"shape": [3, 33], "dtype": "float32"},
            {"shape": [5, 17], "dtype": "float16"},
            {"shape": [4, 9], "dtype": "bfloat16"},
        ],
        "full": product(shape=BWD_SHAPES, dtype=BWD_DTYPES),
        "edge": [
            {"shape": [300, 64], "dtype": "float32", "layout": "transposed"},
            {"shape": [64, 300], "dtype": "float32", "scale": 30.0},
            {"shape": [0, 5], "dtype": "float32"},
        ],
        "perf": [{"shape": list(s), "dtype": d} for s in PERF_ELEMENTWISE for d in ("bfloat16", "float32")],
    },
    make_inputs=_grad_self_inputs,
    reduce_dim=lambda case: 1,
    cost=io_cost(_mish_invoke, per_element(12.0)),
    mc=True,
    fidelity="Reference is torch's mish_backward. Full tier = upstream's test_mish_backward_tensor (3 shapes x 3 "
    "dtypes) = 9 cases, R = 1. Checked on CPU against a float64 evaluation cast back to the dtype.",
    notes="Compute in float32; softplus must not overflow for large x (use x for x > 20).",
)

# ---------------------------------------------------------------- softplus_backward


def _softplus_invoke(impl: Any, inputs: Inputs) -> Any:
    return _call(
        "softplus_backward",
        "grad_input",
        "grad_input",
        inputs,
        inputs["grad_output"],
        inputs["self"],
        inputs["beta"],
        inputs["threshold"],
    )


SOFTPLUS_BACKWARD = OperatorSpec(
    id="aten::softplus_backward",
    category="elementwise",
    description="Gradient of softplus(x) = log1p(exp(beta * x)) / beta (x where beta * x > threshold): "
    "grad_input = grad_output * z / (z + 1) with z = exp(beta * x), or grad_output where "
    "beta * x > threshold.",
    signature=schema_text("softplus_backward", ["default", "grad_input"]),
    entrypoints=("softplus_backward", "softplus_backward_grad_input"),
    invoke=_softplus_invoke,
    cases={
        "smoke": [
            {"shape": [3, 33], "dtype": "float32", "beta": 1.0, "threshold": 20.0},
            {"shape": [5, 17], "dtype": "float16", "beta": 2.0, "threshold": 10.0, "overload": "grad_input"},
            {"shape": [4, 9], "dtype": "bfloat16", "beta": 0.5, "threshold": 20.0},
        ],
        "full": _both_overloads(
            product(shape=BWD_SHAPES, dtype=BWD_DTYPES, beta=[0.5, 1.0, 2.0], threshold=[10.0, 20.0]), "grad_input"
        ),
        "edge": [
            {"shape": [300, 64], "dtype": "float32", "beta": 1.0, "threshold": 20.0, "layout": "transposed"},
            {"shape": [64, 300], "dtype": "float32", "beta": 1.0, "threshold": 20.0, "scale": 40.0},
            {"shape": [64, 300], "dtype": "float16", "beta": 3.0, "threshold": 1.0},
        ],
        "perf": [
            {"shape": list(s), "dtype": d, "beta": 1.0, "threshold": 20.0}
            for s in PERF_ELEMENTWISE
            for d in ("bfloat16", "float32")
        ],
    },
    make_inputs=_grad_self_inputs,
    reduce_dim=lambda case: 1,
    cost=io_cost(_softplus_invoke, per_element(5.0)),
    mutates=("out",),
    mc=True,
    fidelity="Reference is torch's softplus_backward. Full tier = upstream's _tensor and _grad_input_out tests "
    "(3 shapes x 3 dtypes x beta {0.5, 1, 2} x threshold {10, 20}) = 108 cases, R = 1. Checked on CPU "
    "against a float64 evaluation cast back to the dtype.",
    notes="The threshold test is on beta * x (strictly greater: pass the gradient through unchanged). Compute "
    "in float32.",
)

# ---------------------------------------------------------------- rrelu_with_noise_backward


def _rrelu_bwd_inputs(case: dict[str, Any], rng: Rng) -> Inputs:
    shape, dtype = case["shape"], case["dtype"]
    lower, upper = case.get("lower", 0.1), case.get("upper", 0.3)
    x = randn(rng, shape, dtype, case.get("layout", "contiguous"))
    grad = randn(rng, shape, dtype)
    noise = rng.uniform(shape, lower, upper, dtype)
    inputs = {
        "grad_output": grad,
        "self": x,
        "noise": noise,
        "lower": lower,
        "upper": upper,
        "training": case["training"],
        "self_is_result": case.get("overload", "default") == "out",
    }
    return _maybe_out(inputs, case, shape, x.device)


def _rrelu_bwd_invoke(impl: Any, inputs: Inputs) -> Any:
    return _call(
        "rrelu_with_noise_backward",
        "out",
        "out",
        inputs,
        inputs["grad_output"],
        inputs["self"],
        inputs["noise"],
        inputs["lower"],
        inputs["upper"],
        inputs["training"],
        inputs["self_is_result"],
    )


def _rrelu_bwd_cost(case: dict[str, Any], inputs: Inputs) -> Cost:
    """grad_output read, grad_input written, and one of noise (training: grad_output * noise) or self
    (eval: the sign of self picks the slope); the other one is not read."""
    grad = inputs["grad_output"]
    training = inputs["training"] and inputs["upper"] - inputs["lower"] > 1e-6
    factor = inputs["noise"] if training else inputs["self"]
    bytes_per_element = (
        2 * grad.element_size() + factor.element_size()
    )  # grad_output and factor read, grad_input written
    return Cost(flops=1.0 * grad.numel(), bytes=float(grad.numel() * bytes_per_element), dtype=dtype_name(grad.dtype))


RRELU_WITH_NOISE_BACKWARD = OperatorSpec(
    id="aten::rrelu_with_noise_backward",
    category="elementwise",
    description="Gradient of rrelu_with_noise: in training mode (upper - lower > 1e-6) grad_input = grad_output * "
    "noise; otherwise leaky_relu's gradient with slope (lower + upper) / 2: grad_output where self > 0, "
    "grad_output * slope elsewhere.",
    signature=schema_text("rrelu_with_noise_backward", ["default", "out"]),
    entrypoints=("rrelu_with_noise_backward", "rrelu_with_noise_backward_out"),
    invoke=_rrelu_bwd_invoke,
    cases={
        "smoke": [
            {"shape": [3, 33], "dtype": "float32", "training": True},
            {"shape": [5, 17], "dtype": "float16", "training": False, "overload": "out"},
            {"shape": [4, 9], "dtype": "bfloat16", "training": False},
        ],
        "full": _both_overloads(
            product(shape=[(2, 3), (128, 256), (1024, 1024)], dtype=BWD_DTYPES, training=[True, False]), "out"
        ),
        "edge": [
            {"shape": [300, 64], "dtype": "float32", "training": False, "layout": "transposed"},
            {"shape": [64, 30], "dtype": "float32", "training": True, "lower": 0.2, "upper": 0.2},
            {"shape": [0, 3], "dtype": "float32", "training": True},
        ],
        "perf": [
            {"shape": list(s), "dtype": d, "training": t}
            for s in PERF_ELEMENTWISE
            for d, t in (("bfloat16", True), ("float32", False))
        ],
    },
    make_inputs=_rrelu_bwd_inputs,
    reduce_dim=lambda case: 1,
    cost=_rrelu_bwd_cost,
    mutates=("out",),
    mc=True,
    fidelity="Reference is torch's rrelu_with_noise_backward. Full tier = upstream's _tensor (self_is_result "
    "False) and _out (self_is_result True) tests: shapes (2, 3), (128, 256), (1024, 1024) x 3 dtypes x "
    "training = 36 cases, lower 0.1, upper 0.3, noise uniform in [lower, upper), R = 1.",
    notes="Training mode ignores self: grad_output * noise. Eval mode (or upper == lower) is leaky_relu_backward "
    "with negative slope (lower + upper) / 2; self_is_result only says self holds the forward output (same "
    "sign test).",
)

# ---------------------------------------------------------------- reflection_pad1d_backward


def _reflection_inputs(case: dict[str, Any], rng: Rng) -> Inputs:
    n, c, w = case["shape"]
    pad_l, pad_r = case["padding"]
    dtype = case["dtype"]
    x = randn(rng, [n, c, w], dtype)
    grad = randn(rng, [n, c, w + pad_l + pad_r], dtype, case.get("layout", "contiguous"))
    return _maybe_out({"grad_output": grad, "self": x, "padding": list(case["padding"])}, case, [n, c, w], x.device)


def _reflection_invoke(impl: Any, inputs: Inputs) -> Any:
    return _call(
        "reflection_pad1d_backward",
        "grad_input",
        "grad_input",
        inputs,
        inputs["grad_output"],
        inputs["self"],
        inputs["padding"],
    )


def _reflection_cost(case: dict[str, Any], inputs: Inputs) -> Cost:
    """grad_output read and grad_input (self's shape) written; self gives only the shape, its values are
    not read."""
    grad, x = inputs["grad_output"], inputs["self"]
    return Cost(
        flops=1.0 * grad.numel(),
        bytes=float((grad.numel() + x.numel()) * grad.element_size()),
        dtype=dtype_name(grad.dtype),
    )


REFLECTION_PAD1D_BACKWARD = OperatorSpec(
    id="aten::reflection_pad1d_backward",
    category="layout",
    description="Gradient of reflection_pad1d over the last dim: grad_input[..., j] sums grad_output at j + pad_l "
    "and at every padded position that reflects onto j (pad_l - j for the left border, the mirror "
    "image for the right).",
    signature=schema_text("reflection_pad1d_backward", ["default", "grad_input"]),
    entrypoints=("reflection_pad1d_backward", "reflection_pad1d_backward_grad_input"),
    invoke=_reflection_invoke,
    reference=float64_reference(_reflection_invoke, main="grad_output"),
    cases={
        "smoke": [
            {"shape": [2, 3, 8], "dtype": "float32", "padding": [2, 3]},
            {"shape": [2, 4, 16], "dtype": "float16", "padding": [5, 5], "overload": "grad_input"},
            {"shape": [1, 2, 9], "dtype": "bfloat16", "padding": [1, 1]},
        ],
        "full": _both_overloads(
            product(shape=[(2, 3, 8), (4, 16, 64), (32, 64, 512)], dtype=BWD_DTYPES, padding=[(1, 1), (2, 3), (5, 5)]),
            "grad_input",
        ),
        "edge": [
            {"shape": [3, 5, 40], "dtype": "float32", "padding": [0, 7]},
            {"shape": [4, 8, 33], "dtype": "float32", "padding": [31, 32], "layout": "transposed"},
            {"shape": [2, 3, 2], "dtype": "float32", "padding": [1, 1]},
        ],
        "perf": [
            {"shape": [64, 4096, 1024], "dtype": "bfloat16", "padding": [3, 3]},
            {"shape": [16, 1024, 8192], "dtype": "float32", "padding": [64, 64]},
        ],
    },
    make_inputs=_reflection_inputs,
    reduce_dim=lambda case: 1,
    cost=_reflection_cost,
    mutates=("out",),
    mc=True,
    fidelity="Reference: torch's reflection_pad1d_backward in float64, rounded once to the dtype: torch adds "
    "the up to three contributions per element in bfloat16, which falls outside the bfloat16 tolerance "
    "of the float64 sum (2 of 48 elements at padding (5, 5), measured). Full tier = upstream's _tensor and _grad_input tests "
    "(shapes (2, 3, 8), (4, 16, 64), (32, 64, 512) x 3 dtypes x padding (1, 1), (2, 3), (5, 5)) = 54 "
    "cases, R = 1.",
    notes="Padding must be < W on each side; one input position can receive up to three contributions "
    "(itself and a reflection from each border). Accumulate in float32.",
)

# ---------------------------------------------------------------- upsample_nearest2d_backward


def _upsample_inputs(case: dict[str, Any], rng: Rng) -> Inputs:
    n, c, in_h, in_w, out_h, out_w = case["sizes"]
    grad = randn(rng, [n, c, out_h, out_w], case["dtype"], case.get("layout", "contiguous"))
    use_scales = case["use_scales"]
    inputs = {
        "grad_output": grad,
        "output_size": [out_h, out_w],
        "input_size": [n, c, in_h, in_w],
        "scales_h": out_h / in_h if use_scales else None,
        "scales_w": out_w / in_w if use_scales else None,
    }
    return _maybe_out(inputs, case, [n, c, in_h, in_w], grad.device)


def _upsample_invoke(impl: Any, inputs: Inputs) -> Any:
    return _call(
        "upsample_nearest2d_backward",
        "grad_input",
        "grad_input",
        inputs,
        inputs["grad_output"],
        inputs["output_size"],
        inputs["input_size"],
        inputs["scales_h"],
        inputs["scales_w"],
    )


UPSAMPLE_NEAREST2D_BACKWARD = OperatorSpec(
    id="aten::upsample_nearest2d_backward",
    category="layout",
    description="Gradient of nearest-neighbour 2-D upsampling: each output pixel (oh, ow) maps to source "
    "(floor(oh * in_h / out_h), floor(ow * in_w / out_w)) (with 1/scales when scales are given); "
    "grad_input sums grad_output over the output pixels that map to it.",
    signature=schema_text("upsample_nearest2d_backward", ["default", "grad_input"]),
    entrypoints=("upsample_nearest2d_backward", "upsample_nearest2d_backward_grad_input"),
    invoke=_upsample_invoke,
    reference=float64_reference(_upsample_invoke, main="grad_output"),
    cases={
        "smoke": [
            {"sizes": [2, 3, 4, 5, 8, 10], "dtype": "float32", "use_scales": False},
            {"sizes": [1, 2, 6, 7, 9, 14], "dtype": "float16", "use_scales": True, "overload": "grad_input"},
            {"sizes": [1, 2, 5, 5, 10, 15], "dtype": "bfloat16", "use_scales": False},
        ],
        "full": _both_overloads(
            product(
                sizes=[(2, 3, 4, 5, 8, 10), (4, 8, 16, 32, 24, 48), (1, 32, 64, 128, 128, 256)],
                dtype=BWD_DTYPES,
                use_scales=[False, True],
            ),
            "grad_input",
        ),
        "edge": [
            {"sizes": [2, 3, 7, 9, 5, 4], "dtype": "float32", "use_scales": False},
            {"sizes": [2, 3, 13, 11, 29, 37], "dtype": "float32", "use_scales": True, "layout": "transposed"},
            {"sizes": [1, 1, 1, 1, 64, 64], "dtype": "float16", "use_scales": False},
        ],
        "perf": [
            {"sizes": [8, 64, 256, 256, 512, 512], "dtype": "bfloat16", "use_scales": False},
            {"sizes": [16, 128, 64, 64, 256, 256], "dtype": "float32", "use_scales": True},
        ],
    },
    make_inputs=_upsample_inputs,
    reduce_dim=lambda case: 1,
    cost=io_cost(_upsample_invoke, per_element(1.0, "grad_output"), main="grad_output"),
    mutates=("out",),
    mc=True,
    fidelity="Reference: torch's upsample_nearest2d_backward in float64, rounded once to the dtype (several "
    "output pixels add into one input pixel; a kernel accumulating in fp32 rounds once). Full tier = upstream's _tensor and _grad_input "
    "tests (3 size sets x 3 dtypes x scales given or not) = 36 cases, R = 1.",
    notes="Source index = min(floor(dst * scale), in - 1) with scale = in/out, or 1/scales_h (1/scales_w) when "
    "given. Downsampling (out < in) also occurs. Accumulate in float32.",
)

# ---------------------------------------------------------------- select_backward


def _select_inputs(case: dict[str, Any], rng: Rng) -> Inputs:
    sizes, dim = list(case["input_sizes"]), case["dim"]
    dim_c = dim % len(sizes)
    index = {"first": 0, "mid": sizes[dim_c] // 2, "neg1": -1}[case["index_mode"]]
    grad_shape = sizes[:dim_c] + sizes[dim_c + 1 :]
    grad = randn(rng, grad_shape, case["dtype"], case.get("layout", "contiguous"))
    return _maybe_out({"grad_output": grad, "input_sizes": sizes, "dim": dim, "index": index}, case, sizes, grad.device)


def _select_invoke(impl: Any, inputs: Inputs) -> Any:
    return _call(
        "select_backward",
        "out",
        "out",
        inputs,
        inputs["grad_output"],
        inputs["input_sizes"],
        inputs["dim"],
        inputs["index"],
    )


SELECT_BACKWARD = OperatorSpec(
    id="aten::select_backward",
    category="indexing",
    description="Gradient of select(dim, index): a zero tensor of input_sizes whose slice at `index` along `dim` "
    "is grad_output (negative index counts from the end).",
    signature=schema_text("select_backward", ["default", "out"]),
    entrypoints=("select_backward", "select_backward_out"),
    invoke=_select_invoke,
    cases={
        "smoke": [
            {"input_sizes": [3, 33], "dim": 0, "index_mode": "mid", "dtype": "float32"},
            {"input_sizes": [5, 17], "dim": -1, "index_mode": "neg1", "dtype": "float16", "overload": "out"},
            {"input_sizes": [4, 9], "dim": 1, "index_mode": "first", "dtype": "bfloat16"},
        ],
        "full": _both_overloads(
            product(
                input_sizes=[(2, 3), (128, 256), (512, 512)],
                dim=[0, -1],
                index_mode=["first", "mid", "neg1"],
                dtype=BWD_DTYPES,
            ),
            "out",
        ),
        "edge": [
            {"input_sizes": [6, 70, 33], "dim": 1, "index_mode": "mid", "dtype": "float32", "layout": "transposed"},
            {"input_sizes": [7], "dim": 0, "index_mode": "neg1", "dtype": "float32"},
            {"input_sizes": [1, 300], "dim": 0, "index_mode": "first", "dtype": "bfloat16"},
        ],
        "perf": [
            {"input_sizes": [4096, 14336], "dim": 0, "index_mode": "mid", "dtype": "bfloat16"},
            {"input_sizes": [32, 4096, 4096], "dim": 0, "index_mode": "neg1", "dtype": "float32"},
        ],
    },
    make_inputs=_select_inputs,
    reduce_dim=lambda case: 1,
    cost=io_cost(_select_invoke, lambda case, inputs: 0.0, main="grad_output"),
    mutates=("out",),
    mc=True,
    fidelity="Reference is torch's select_backward. Full tier = upstream's _default and _out tests (3 sizes x dim "
    "{0, -1} x index first/mid/-1 x 3 dtypes) = 108 cases, R = 1 (the output is an exact copy plus zeros).",
    notes="Every element outside the selected slice must be written as 0 (the output buffer is not zeroed for you).",
)

# ---------------------------------------------------------------- im2col

_IM2COL_PARAMS = [
    ((3, 3), (1, 1), (1, 1), (1, 1)),
    ((3, 3), (1, 1), (0, 0), (2, 2)),
    ((5, 4), (2, 2), (2, 1), (1, 2)),
    ((1, 1), (1, 1), (0, 0), (1, 1)),
]  # (kernel_size, dilation, padding, stride), upstream's list


def _im2col_out_shape(shape: list[int], k: list[int], d: list[int], p: list[int], s: list[int]) -> list[int]:
    *lead, c, h, w = shape
    out_h = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    out_w = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    return [*lead, c * k[0] * k[1], out_h * out_w]


def _im2col_inputs(case: dict[str, Any], rng: Rng) -> Inputs:
    k, d, p, s = (list(v) for v in case["params"])
    x = randn(rng, case["shape"], case["dtype"], case.get("layout", "contiguous"))
    inputs = {"self": x, "kernel_size": k, "dilation": d, "padding": p, "stride": s}
    return _maybe_out(inputs, case, _im2col_out_shape(list(case["shape"]), k, d, p, s), x.device)


def _im2col_invoke(impl: Any, inputs: Inputs) -> Any:
    return _call(
        "im2col",
        "out",
        "out",
        inputs,
        inputs["self"],
        inputs["kernel_size"],
        inputs["dilation"],
        inputs["padding"],
        inputs["stride"],
    )


IM2COL = OperatorSpec(
    id="aten::im2col",
    category="layout",
    description="Unfold sliding kH x kW patches (with dilation, zero padding and stride) of input [(N,) C, H, W] "
    "into columns: output [(N,) C*kH*kW, L], row c*kH*kW + i*kW + j holding patch element (i, j) of "
    "channel c for each of the L = out_h * out_w positions (row-major).",
    signature=schema_text("im2col", ["default", "out"]),
    entrypoints=("im2col", "im2col_out"),
    invoke=_im2col_invoke,
    cases={
        "smoke": [
            {"shape": [3, 8, 8], "dtype": "float32", "params": list(_IM2COL_PARAMS[0])},
            {"shape": [2, 9, 7], "dtype": "float16", "params": list(_IM2COL_PARAMS[2]), "overload": "out"},
            {"shape": [2, 6, 6], "dtype": "bfloat16", "params": list(_IM2COL_PARAMS[1])},
        ],
        "full": _both_overloads(
            product(shape=[(3, 8, 8), (16, 64, 64), (32, 128, 128)], dtype=BWD_DTYPES, params=_IM2COL_PARAMS), "out"
        ),
        "edge": [
            {"shape": [2, 3, 17, 23], "dtype": "float32", "params": list(_IM2COL_PARAMS[2])},
            {"shape": [4, 33, 19], "dtype": "float32", "params": list(_IM2COL_PARAMS[0]), "layout": "transposed"},
            {"shape": [1, 2, 2], "dtype": "float32", "params": [[3, 3], [1, 1], [1, 1], [1, 1]]},
        ],
        "perf": [
            {"shape": [8, 256, 56, 56], "dtype": "bfloat16", "params": list(_IM2COL_PARAMS[0])},
            {"shape": [64, 224, 224], "dtype": "float32", "params": [[16, 16], [1, 1], [0, 0], [16, 16]]},
        ],
    },
    make_inputs=_im2col_inputs,
    exact=True,
    cost=io_cost(_im2col_invoke),
    mutates=("out",),
    mc=True,
    fidelity="Reference is torch's im2col. Full tier = upstream's _tensor and _out tests (shapes (3, 8, 8), "
    "(16, 64, 64), (32, 128, 128) x 3 dtypes x 4 kernel/dilation/padding/stride sets) = 72 cases. The "
    "output is a pure copy with zero padding, so it is compared exactly (upstream used assert_close).",
    notes="Padding positions are 0. Accepts a 3-D (C, H, W) or 4-D (N, C, H, W) input; the input may be "
    "non-contiguous.",
)

SPECS = [
    SMOOTH_L1_LOSS_BACKWARD,
    LOG_SIGMOID_BACKWARD,
    MISH_BACKWARD,
    SOFTPLUS_BACKWARD,
    RRELU_WITH_NOISE_BACKWARD,
    REFLECTION_PAD1D_BACKWARD,
    UPSAMPLE_NEAREST2D_BACKWARD,
    SELECT_BACKWARD,
    IM2COL,
]
