"""ATen copy and conversion operators: _to_copy, to, clone, contiguous, copy_, item,
_local_scalar_dense, resolve_conj, resolve_neg.

Upstream cases: research/upstream_kgb.md §2.1 (counts) and the fork's
`src/kernelgenbench/accuracy/test_ops_with_benchmark.py` (read at HEAD b1966bc). Layout handling:
see `layout_support`.
"""

from __future__ import annotations

from typing import Any

import torch

from operators.catalog.aten.layout_support import (
    ALL_FLOAT_DTYPES,
    ALL_INT_DTYPES,
    FLOAT_DTYPES,
    POINTWISE_SHAPES,
    SPECIAL_SHAPES,
    arg,
    aten_spec,
    compare_layout_too,
    compare_python_scalar,
    copy_cost,
    laid_out,
    nbytes,
    view_cost,
)
from operators.catalog.common import product
from operators.spec import Comparison, Cost, Rng, dtype_of
from operators.tolerance import compare_outputs

# float -> float narrowing conversions round to nearest even: not bit-comparable across a Triton
# interpreter (which truncates) and a GPU; they use the target dtype's tolerance instead.
_FLOAT_WIDTH = {"bfloat16": 1, "float16": 2, "float32": 3, "float64": 4}


def _conversion_is_exact(src: str, dst: str) -> bool:
    s, d = dtype_of(src), dtype_of(dst)
    if not d.is_floating_point or s == d:
        return True  # to integers/bool: truncation / nonzero test, exactly defined
    if not s.is_floating_point:
        return s != torch.int64 and d != torch.float16 and d != torch.bfloat16  # small ints fit fp32/fp64
    if {src, dst} == {"float16", "bfloat16"}:
        return False
    return _FLOAT_WIDTH[dst] > _FLOAT_WIDTH[src]


def _unary_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    inputs: dict[str, Any] = {}
    laid_out(
        inputs,
        "self",
        rng,
        case["shape"],
        case["dtype"],
        case.get("layout", "contiguous"),
        special=bool(case.get("special")),
    )
    return inputs


def _conversion_case(shape: list[int], src: str, dst: str, **extra: Any) -> dict[str, Any]:
    return {"shape": shape, "dtype": src, "out_dtype": dst, "exact": _conversion_is_exact(src, dst), **extra}


# ---- _to_copy -------------------------------------------------------------------------------------


def _to_copy_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    inputs = _unary_inputs(case, rng)
    inputs["out_dtype"] = case["out_dtype"]
    inputs["memory_format"] = case.get("memory_format", "preserve_format")
    return inputs


def _to_copy_invoke(impl: Any, inputs: dict[str, Any]) -> torch.Tensor:
    return torch.ops.aten._to_copy.default(
        arg(inputs, "self"), dtype=dtype_of(inputs["out_dtype"]), memory_format=getattr(torch, inputs["memory_format"])
    )


_TO_COPY_FULL = [
    _conversion_case(shape, "float32" if dst != "float32" else "float16", dst)
    for shape in POINTWISE_SHAPES
    for dst in ALL_FLOAT_DTYPES
] + [
    _conversion_case(
        [8, 8],
        "float32",
        "float32",
        layout="transposed_rows2",
        memory_format=fmt,
        check="strides" if fmt == "preserve_format" else "contiguous",
    )
    for fmt in ("preserve_format", "contiguous_format")
]

TO_COPY = aten_spec(
    "_to_copy",
    ["default"],
    category="elementwise",
    description=(
        "Return a copy of `self` converted to `dtype` (the other keyword arguments at their defaults "
        "except `memory_format`). Float-to-float conversions round to nearest even, float-to-integer "
        "conversions truncate toward zero, conversion to bool tests for non-zero. With "
        "memory_format=torch.preserve_format the output keeps the input's stride order (dense "
        "strides for a non-dense input); with torch.contiguous_format it is row-major."
    ),
    invoke=_to_copy_invoke,
    cases={
        "smoke": [
            _conversion_case([3, 33], "float32", "float16"),
            _conversion_case([2, 5, 17], "float16", "float32"),
            _conversion_case(
                [8, 8],
                "float32",
                "float32",
                layout="transposed_rows2",
                memory_format="preserve_format",
                check="strides",
            ),
        ],
        "full": _TO_COPY_FULL,
        "edge": [
            _conversion_case([0, 5], "float32", "bfloat16"),
            _conversion_case([], "bfloat16", "float32"),
            _conversion_case([33, 65], "float32", "float16", special=True),
            _conversion_case([33, 65], "float32", "bfloat16", special=True),
            _conversion_case([33, 65], "float16", "bfloat16"),
            _conversion_case([33, 65], "bfloat16", "float16"),
            _conversion_case([33, 65], "float32", "int32"),
            _conversion_case([33, 65], "int64", "float32"),
            _conversion_case([33, 65], "int32", "float64"),
            _conversion_case([33, 65], "bool", "float32"),
            _conversion_case([33, 65], "float32", "bool", special=True),
            _conversion_case([64, 48], "float32", "bfloat16", layout="transposed", check="strides"),
            _conversion_case([64, 48], "float16", "float32", layout="strided", check="strides"),
            _conversion_case(
                [64, 48],
                "bfloat16",
                "float32",
                layout="expanded",
                memory_format="contiguous_format",
                check="contiguous",
            ),
        ],
        "perf": [
            _conversion_case([4096, 14336], "float32", "bfloat16"),
            _conversion_case([4096, 14336], "bfloat16", "float32"),
            _conversion_case([16384, 4096], "float16", "float32", layout="transposed", check="strides"),
        ],
    },
    make_inputs=_to_copy_inputs,
    compare=compare_layout_too,
    exact=True,
    cost=copy_cost,
    fidelity=(
        "Reference: the built-in aten._to_copy. full = upstream's 26 cases: POINTWISE_SHAPES x target in "
        "ALL_FLOAT_DTYPES (fp16, fp32, bf16, fp64; source fp32, or fp16 when the target is fp32) plus the "
        "two memory_format cases on randn(8, 16).transpose(0, 1)[::2] (preserve_format: strides must equal "
        "the reference's; contiguous_format: output contiguous), as upstream asserts. Upstream compares "
        "every case bit-exactly; we keep exactness for widening/same-dtype/integer conversions but compare "
        "narrowing float conversions (fp32->fp16/bf16, fp16<->bf16) with the target dtype's tolerance, "
        "because the Triton CPU interpreter truncates where GPUs round: round-to-nearest-even stays the "
        "contract (the prompt says so), a one-ulp truncation slips through the tolerance."
    ),
    notes="Round to nearest even for float narrowing (never truncate); preserve_format keeps the stride order.",
)


# ---- to ---------------------------------------------------------------------------------------------


def _to_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    inputs = _unary_inputs(case, rng)
    inputs["out_dtype"] = case["out_dtype"]
    return inputs


def _to_invoke(impl: Any, inputs: dict[str, Any]) -> torch.Tensor:
    return torch.ops.aten.to.dtype(arg(inputs, "self"), dtype_of(inputs["out_dtype"]))


TO = aten_spec(
    "to",
    ["dtype"],
    category="elementwise",
    description=(
        "Tensor.to(dtype): convert `self` to `dtype`. When the dtype already matches, the input itself may "
        "be returned (copy=False); otherwise a new tensor with the input's stride order. Float narrowing "
        "rounds to nearest even, float-to-integer truncates toward zero."
    ),
    invoke=_to_invoke,
    cases={
        "smoke": [
            _conversion_case([3, 33], "float32", "bfloat16"),
            _conversion_case([7], "float16", "int32"),
            _conversion_case([2, 5, 17], "float16", "float32"),
        ],
        "full": [
            _conversion_case(shape, src, dst)
            for shape in POINTWISE_SHAPES
            for src in ("float32", "float16")
            for dst in ("float16", "bfloat16", "float32", "int32")
        ],
        "edge": [
            _conversion_case([0, 3], "float32", "float16"),
            _conversion_case([33, 65], "float32", "float16", special=True),
            _conversion_case([33, 65], "bfloat16", "float32", special=True),
            _conversion_case([33, 65], "int32", "float32"),
            _conversion_case([33, 65], "float32", "int64"),
            _conversion_case([64, 48], "float32", "bfloat16", layout="transposed"),
            _conversion_case([64, 48], "float16", "float32", layout="strided"),
            _conversion_case([64, 48], "float32", "float16", layout="expanded"),
        ],
        "perf": [
            _conversion_case([4096, 14336], "bfloat16", "float32"),
            _conversion_case([16384, 4096], "float32", "bfloat16"),
        ],
    },
    make_inputs=_to_inputs,
    compare=compare_layout_too,
    exact=True,
    cost=copy_cost,
    fidelity=(
        "Reference: the built-in aten.to.dtype (what `Tensor.to(dtype)` calls). full = upstream's 48 cases "
        "(POINTWISE_SHAPES x source {fp32, fp16} x target {fp16, bf16, fp32, int32}); upstream compares float "
        "targets with the dtype tolerance and int32 exactly, as here (same-dtype and widening cases are "
        "exact here: a correct copy is bit-identical). Strides are not checked (upstream checks values)."
    ),
    notes="Float-to-int truncates toward zero; float narrowing rounds to nearest even.",
)


# ---- clone ------------------------------------------------------------------------------------------


def _clone_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    inputs = _unary_inputs(case, rng)
    inputs["memory_format"] = case.get("memory_format", "preserve_format")
    return inputs


def _clone_invoke(impl: Any, inputs: dict[str, Any]) -> torch.Tensor:
    return torch.ops.aten.clone.default(arg(inputs, "self"), memory_format=getattr(torch, inputs["memory_format"]))


CLONE = aten_spec(
    "clone",
    ["default"],
    category="layout",
    description=(
        "Return a new tensor with the same values, dtype and shape as `self`. memory_format="
        "torch.preserve_format keeps the input's strides when it is dense (else row-major); "
        "torch.contiguous_format gives a row-major tensor."
    ),
    invoke=_clone_invoke,
    cases={
        "smoke": [
            {"shape": [3, 33], "dtype": "float32"},
            {"shape": [2, 5, 17], "dtype": "int64"},
            {
                "shape": [16, 8],
                "dtype": "float16",
                "layout": "transposed",
                "memory_format": "contiguous_format",
                "check": "contiguous",
            },
        ],
        "full": product(shape=POINTWISE_SHAPES, dtype=FLOAT_DTYPES + ["int32", "int64"])
        + [
            {
                "shape": [16, 8],
                "dtype": dt,
                "layout": "transposed",
                "memory_format": fmt,
                **({"check": "contiguous"} if fmt == "contiguous_format" else {}),
            }
            for fmt in ("contiguous_format", "preserve_format")
            for dt in FLOAT_DTYPES
        ],
        "edge": [
            {"shape": [0, 7], "dtype": "float32"},
            {"shape": [], "dtype": "bfloat16"},
            {"shape": [33, 65], "dtype": "float32", "special": True},
            {"shape": [33, 65], "dtype": "bool"},
            {"shape": [64, 48], "dtype": "bfloat16", "layout": "transposed", "check": "strides"},
            {"shape": [64, 48], "dtype": "float16", "layout": "strided"},
            {"shape": [64, 48], "dtype": "float32", "layout": "expanded"},
            {
                "shape": [3, 5, 7, 9],
                "dtype": "int8",
                "layout": "transposed",
                "memory_format": "contiguous_format",
                "check": "contiguous",
            },
        ],
        "perf": [
            {"shape": [4096, 14336], "dtype": "bfloat16"},
            {
                "shape": [14336, 4096],
                "dtype": "bfloat16",
                "layout": "transposed",
                "memory_format": "contiguous_format",
                "check": "contiguous",
            },
        ],
    },
    make_inputs=_clone_inputs,
    compare=compare_layout_too,
    exact=True,
    cost=copy_cost,
    fidelity=(
        "Reference: the built-in aten.clone. full = upstream's 36 cases: POINTWISE_SHAPES x {fp16, fp32, bf16, "
        "int32, int64} and the memory_format cases on randn(8, 16).t() for both formats; like upstream we "
        "require contiguity for contiguous_format and compare values only for preserve_format (one edge case "
        "checks preserved strides). Copying the input is the definition of this operator: the generic "
        "'input-copy must fail' probe does not apply."
    ),
)


# ---- contiguous -------------------------------------------------------------------------------------


def _contiguous_invoke(impl: Any, inputs: dict[str, Any]) -> torch.Tensor:
    return torch.ops.aten.contiguous.default(arg(inputs, "self"))


def _halve_rows(shape: list[int]) -> list[int]:
    return [(shape[0] + 1) // 2] + shape[1:]


CONTIGUOUS = aten_spec(
    "contiguous",
    ["default"],
    category="layout",
    description=(
        "Return `self` if it is already contiguous in row-major order, otherwise a row-major copy with the same values."
    ),
    invoke=_contiguous_invoke,
    cases={
        "smoke": [
            {"shape": [4, 33], "dtype": "float32", "layout": "rows2", "check": "strides"},
            {"shape": [5, 6, 7], "dtype": "int16", "layout": "transposed", "check": "strides"},
        ],
        "full": [
            {"shape": _halve_rows(s), "dtype": dt, "layout": "rows2", "check": "strides"}
            for s in SPECIAL_SHAPES
            if s[0] > 2
            for dt in FLOAT_DTYPES + ALL_INT_DTYPES
        ],
        "edge": [
            {"shape": [0, 5], "dtype": "float32", "layout": "transposed", "check": "strides"},
            {"shape": [33, 65], "dtype": "float32", "check": "strides"},
            {"shape": [33, 65], "dtype": "bfloat16", "layout": "strided", "check": "strides", "special": True},
            {"shape": [17, 33, 65], "dtype": "float16", "layout": "expanded", "check": "strides"},
            {"shape": [3, 1, 129], "dtype": "int64", "layout": "transposed", "check": "strides"},
        ],
        "perf": [
            {"shape": [14336, 4096], "dtype": "bfloat16", "layout": "transposed", "check": "strides"},
            {"shape": [16384, 4096], "dtype": "float16", "layout": "rows2", "check": "strides"},
        ],
    },
    make_inputs=_unary_inputs,
    compare=compare_layout_too,
    exact=True,
    cost=copy_cost,
    fidelity=(
        "Reference: the built-in aten.contiguous. full = upstream's SPECIAL_SHAPES x {fp16, fp32, bf16, int16, "
        "int32, int64} on `x[::2]`, minus the 6 cases of shape (1,) that upstream skips (returns early): 24 "
        "cases; shapes listed here are the sliced (logical) shapes. Like upstream we require a contiguous "
        "output whose strides equal the reference's, values bit-exact."
    ),
)


# ---- copy_ ------------------------------------------------------------------------------------------


def _copy_case(
    shape: list[int], dtype: str, src_shape: list[int] | None = None, src_dtype: str | None = None, **extra: Any
) -> dict[str, Any]:
    return {
        "shape": shape,
        "dtype": dtype,
        "src_shape": src_shape if src_shape is not None else shape,
        "src_dtype": src_dtype or dtype,
        **extra,
    }


def _copy_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    inputs: dict[str, Any] = {}
    laid_out(inputs, "self", rng, case["shape"], case["dtype"], case.get("layout", "contiguous"))
    laid_out(
        inputs,
        "src",
        rng,
        case["src_shape"],
        case["src_dtype"],
        case.get("src_layout", "contiguous"),
        special=bool(case.get("special")),
    )
    return inputs


def _copy_invoke(impl: Any, inputs: dict[str, Any]) -> torch.Tensor:
    torch.ops.aten.copy_.default(arg(inputs, "self"), arg(inputs, "src"))
    return inputs["self"]  # the whole base: elements outside a strided destination must stay untouched


def _copy_cost(case: dict[str, Any], inputs: dict[str, Any]) -> Cost:
    return Cost(
        flops=0.0,
        bytes=float(nbytes(case["src_shape"], case["src_dtype"]) + nbytes(case["shape"], case["dtype"])),
        dtype=case["dtype"],
    )


COPY_ = aten_spec(
    "copy_",
    ["default"],
    category="layout",
    description=(
        "In place: write `src` into `self` (broadcasting `src` to self's shape and converting to self's "
        "dtype: float narrowing rounds to nearest even, float-to-int truncates), then return `self`. "
        "`self` may be a strided view: only its elements are written."
    ),
    invoke=_copy_invoke,
    cases={
        "smoke": [
            _copy_case([3, 33], "float32"),
            _copy_case([2, 3], "float32", [3]),
            _copy_case([7], "float32", src_dtype="int32"),
        ],
        "full": [_copy_case(s, dt) for s in POINTWISE_SHAPES for dt in FLOAT_DTYPES]
        + [
            _copy_case([2, 3], "float32", [3]),
            _copy_case([8], "float32", src_dtype="int32"),
            _copy_case([8], "int32", src_dtype="float32"),
            _copy_case([8], "float32", src_dtype="int16"),
            _copy_case([8], "float32", src_dtype="bool"),
        ],
        "edge": [
            _copy_case([0, 4], "float32"),
            _copy_case([], "float16", []),
            _copy_case([33, 65], "float32", special=True),
            _copy_case([64, 48], "bfloat16", layout="transposed"),
            _copy_case([64, 48], "float16", layout="strided", src_layout="transposed"),
            _copy_case([64, 48], "float32", src_layout="expanded"),
            _copy_case([5, 64, 48], "float32", [64, 1]),
            _copy_case([64, 48], "float16", src_dtype="float32", special=True),
            _copy_case([64, 48], "bfloat16", src_dtype="float16"),
        ],
        "perf": [
            _copy_case([4096, 14336], "bfloat16"),
            _copy_case([4096, 14336], "bfloat16", src_dtype="float32"),
            _copy_case([14336, 4096], "bfloat16", src_layout="transposed"),
        ],
    },
    make_inputs=_copy_inputs,
    compare=compare_layout_too,
    exact=False,
    mutates=("self",),
    cost=_copy_cost,
    fidelity=(
        "Reference: the built-in aten.copy_. full = upstream's 23 cases: POINTWISE_SHAPES x {fp16, fp32, bf16} "
        "same-dtype copies into zeros, the (3,) -> (2, 3) broadcast, int32 -> fp32, and the mixed pairs "
        "fp32 -> int32, int16 -> fp32, bool -> fp32 (upstream uses arange / a fixed bool pattern as source; "
        "we use random values, which also exercise truncation toward zero). Compared bit-exactly except where "
        "a case narrows floats (`exact`: false), which uses the target dtype's tolerance."
    ),
)
for _tier in COPY_.cases.values():
    for _case in _tier:
        _case["exact"] = _conversion_is_exact(_case["src_dtype"], _case["dtype"])


# ---- item / _local_scalar_dense ----------------------------------------------------------------------


def _item_invoke(impl: Any, inputs: dict[str, Any]) -> Any:
    return torch.ops.aten.item.default(arg(inputs, "self"))


def _local_scalar_dense_invoke(impl: Any, inputs: dict[str, Any]) -> Any:
    return torch.ops.aten._local_scalar_dense.default(arg(inputs, "self"))


def _scalar_cost(case: dict[str, Any], inputs: dict[str, Any]) -> Cost:
    return Cost(flops=0.0, bytes=float(dtype_of(case["dtype"]).itemsize), dtype=case["dtype"])


_SCALAR_EDGE = [
    {"shape": [1], "dtype": "bool"},
    {"shape": [], "dtype": "float64"},
    {"shape": [], "dtype": "uint8"},
    {"shape": [1, 1, 1], "dtype": "float32"},
    {"shape": [1], "dtype": "float32", "layout": "strided"},
    {"shape": [1, 1], "dtype": "bfloat16", "layout": "transposed"},
]

ITEM = aten_spec(
    "item",
    ["default"],
    category="layout",
    description=(
        "Return the single element of a one-element tensor as a Python number: float for floating dtypes, "
        "int for integer dtypes, bool for bool."
    ),
    invoke=_item_invoke,
    cases={
        "smoke": [{"shape": [1], "dtype": "float32"}, {"shape": [1], "dtype": "int64"}],
        "full": product(shape=[[1]], dtype=FLOAT_DTYPES + ALL_INT_DTYPES),
        "edge": _SCALAR_EDGE,
        "perf": [{"shape": [1], "dtype": "float32"}, {"shape": [], "dtype": "int64"}],
    },
    make_inputs=_unary_inputs,
    compare=compare_python_scalar,
    exact=True,
    cost=_scalar_cost,
    fidelity=(
        "Reference: the built-in aten.item. full = upstream's 6 cases (shape (1,) x {fp16, fp32, bf16, int16, "
        "int32, int64}), compared with == like upstream, and the Python type must match. The value must travel "
        "device -> host, so a solution needs a device-to-host read that does not re-enter aten.item."
    ),
    notes="Returns a Python scalar, not a tensor. Calling Tensor.item() inside the wrapper recurses.",
)

LOCAL_SCALAR_DENSE = aten_spec(
    "_local_scalar_dense",
    ["default"],
    category="layout",
    description=(
        "Return the single element of a one-element tensor as a Python number (what Tensor.item() calls): "
        "float for floating dtypes, int for integer dtypes, bool for bool."
    ),
    invoke=_local_scalar_dense_invoke,
    cases={
        "smoke": [{"shape": [1], "dtype": "float32"}, {"shape": [], "dtype": "bfloat16"}],
        "full": product(shape=[[1]], dtype=FLOAT_DTYPES + ["int32", "int64"]) + product(shape=[[]], dtype=FLOAT_DTYPES),
        "edge": _SCALAR_EDGE,
        "perf": [{"shape": [1], "dtype": "float32"}, {"shape": [], "dtype": "int64"}],
    },
    make_inputs=_unary_inputs,
    compare=compare_python_scalar,
    exact=True,
    cost=_scalar_cost,
    fidelity=(
        "Reference: the built-in aten._local_scalar_dense. full = upstream's 8 cases: shape (1,) x {fp16, fp32, "
        "bf16, int32, int64} and 0-d x {fp16, fp32, bf16}. Upstream compares the first group with == and the "
        "0-d group within 1e-5; we require equality throughout (the value is a copy, there is nothing to round)."
    ),
    notes="Returns a Python scalar, not a tensor. Calling Tensor.item() inside the wrapper recurses.",
)


# ---- resolve_conj / resolve_neg ----------------------------------------------------------------------


def _flagged_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    inputs = _unary_inputs(case, rng)
    inputs["flag"] = "set" if case.get("flag", True) else "clear"
    return inputs


def _resolve_conj_invoke(impl: Any, inputs: dict[str, Any]) -> torch.Tensor:
    x = arg(inputs, "self")
    # the conjugate bit is set here, after the harness's clone (a clone resolves it)
    return torch.ops.aten.resolve_conj.default(x.conj() if inputs["flag"] == "set" else x)


def _resolve_neg_invoke(impl: Any, inputs: dict[str, Any]) -> torch.Tensor:
    x = arg(inputs, "self")
    return torch.ops.aten.resolve_neg.default(torch._neg_view(x) if inputs["flag"] == "set" else x)


def _compare_resolved(out: Any, ref: Any, case: dict[str, Any], inputs: dict[str, Any]) -> Comparison:
    """Values bit-exact, and the lazy conjugate/negative bit must be gone (a tensor that still carries it
    reads as the right values but is not resolved)."""
    if isinstance(out, torch.Tensor) and (out.is_conj() or out.is_neg()):
        return Comparison(False, reason="output still carries the lazy conjugate/negative bit")
    return compare_outputs(out, ref, exact=True)


def _resolve_cost(case: dict[str, Any], inputs: dict[str, Any]) -> Cost:
    return copy_cost(case, inputs) if case.get("flag", True) else view_cost(case, inputs)


RESOLVE_CONJ = aten_spec(
    "resolve_conj",
    ["default"],
    category="layout",
    description=(
        "If `self` carries the lazy-conjugation bit (self.is_conj()), return a new tensor holding the "
        "materialized complex conjugate (imaginary parts negated) with the bit cleared; otherwise return "
        "`self` unchanged. Real tensors never carry the bit."
    ),
    invoke=_resolve_conj_invoke,
    cases={
        "smoke": [{"shape": [3, 33], "dtype": "complex64"}, {"shape": [7], "dtype": "float32", "flag": False}],
        "full": product(shape=POINTWISE_SHAPES, dtype=["complex64", "complex128"])
        + product(shape=POINTWISE_SHAPES, dtype=["float32"], flag=[False]),
        "edge": [
            {"shape": [0, 3], "dtype": "complex64"},
            {"shape": [64, 48], "dtype": "complex64", "layout": "transposed"},
            {"shape": [64, 48], "dtype": "complex64", "layout": "strided"},
            {"shape": [64, 48], "dtype": "bfloat16", "flag": False},
        ],
        "perf": [{"shape": [4096, 4096], "dtype": "complex64"}],
    },
    make_inputs=_flagged_inputs,
    compare=_compare_resolved,
    exact=True,
    cost=_resolve_cost,
    fidelity=(
        "Upstream deleted this operator's test (research/upstream_kgb.md §2.1), so every case here is ours: "
        "POINTWISE_SHAPES x {complex64, complex128} with the conjugate bit set (via Tensor.conj() inside the "
        "call, because a clone resolves the bit), and POINTWISE_SHAPES x fp32 without it (must come back "
        "unchanged). Reference: the built-in aten.resolve_conj. Values compared bit-exactly; strides and "
        "aliasing are not checked. Complex dtypes are a portability risk on some Triton backends."
    ),
    notes="The output must not carry the conjugate bit: out.is_conj() is False and its values are conj(self).",
)

RESOLVE_NEG = aten_spec(
    "resolve_neg",
    ["default"],
    category="layout",
    description=(
        "If `self` carries the lazy-negation bit (self.is_neg(), set by torch._neg_view), return a new "
        "tensor holding the materialized negated values with the bit cleared; otherwise return `self`."
    ),
    invoke=_resolve_neg_invoke,
    cases={
        "smoke": [{"shape": [3, 33], "dtype": "float32"}, {"shape": [2, 5, 17], "dtype": "bfloat16"}],
        "full": product(shape=POINTWISE_SHAPES, dtype=FLOAT_DTYPES)
        + product(shape=POINTWISE_SHAPES, dtype=["float32"], flag=[False]),
        "edge": [
            {"shape": [0, 3], "dtype": "float32"},
            {"shape": [33, 65], "dtype": "float16", "special": True},
            {"shape": [64, 48], "dtype": "float32", "layout": "transposed"},
            {"shape": [64, 48], "dtype": "bfloat16", "layout": "strided"},
            {"shape": [16, 16], "dtype": "complex64"},
        ],
        "perf": [{"shape": [4096, 14336], "dtype": "bfloat16"}],
    },
    make_inputs=_flagged_inputs,
    compare=_compare_resolved,
    exact=True,
    cost=_resolve_cost,
    fidelity=(
        "Upstream deleted this operator's test (research/upstream_kgb.md §2.1), so every case here is ours: "
        "POINTWISE_SHAPES x {fp16, fp32, bf16} with the negative bit set (torch._neg_view inside the call, "
        "because a clone resolves the bit) and POINTWISE_SHAPES x fp32 without it. Reference: the built-in "
        "aten.resolve_neg. Negation is exact, so values are compared bit-exactly (incl. -0.0 vs 0.0 only "
        "through ==, which treats them as equal); strides and aliasing are not checked."
    ),
    notes="The output must not carry the negative bit: out.is_neg() is False and its values are -self.",
)

SPECS = [TO_COPY, TO, CLONE, CONTIGUOUS, COPY_, ITEM, LOCAL_SCALAR_DENSE, RESOLVE_CONJ, RESOLVE_NEG]
