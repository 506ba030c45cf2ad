"""ATen creation operators: arange, empty_strided, new_empty_strided, full, zeros, zeros_like,
ones_like, new_ones, scalar_tensor, fill_, zero_, affine_grid_generator.

Upstream cases: research/upstream_kgb.md §2.1 (counts) and the fork's
`src/kernelgenbench/accuracy/test_ops_with_benchmark.py` (read at HEAD b1966bc). Integer lists
(sizes, strides) travel in `inputs` as "AxBxC" strings (`dims_str` / `parse_dims`), because inputs
hold only tensors, scalars and strings.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from operators.catalog.aten.layout_support import (
    ALL_FLOAT_DTYPES,
    ALL_INT_DTYPES,
    FLOAT_DTYPES,
    POINTWISE_SHAPES,
    arg,
    aten_spec,
    compare_metadata,
    compare_per_case,
    device_of,
    laid_out,
    nbytes,
    values,
    write_only_cost,
)
from operators.catalog.common import product
from operators.spec import Cost, Rng, dtype_of

_ZERO_ONE_OK = "the output is a constant by definition"


def dims_str(dims: list[int]) -> str:
    return "x".join(str(int(d)) for d in dims)


def parse_dims(text: str) -> list[int]:
    return [int(d) for d in text.split("x") if d]


def _device_inputs(rng: Rng) -> dict[str, Any]:
    return {"device": str(rng.device)}


def _dtype_or_none(name: str | None) -> torch.dtype | None:
    return dtype_of(name) if name else None


# ---- arange -----------------------------------------------------------------------------------------


def _arange_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    return {
        **_device_inputs(rng),
        **{k: case[k] for k in ("start", "end", "step") if k in case},
        "overload": case.get("overload", "start_step"),
        "dtype": case.get("dtype") or "",
    }


def _arange_invoke(impl: Any, inputs: dict[str, Any]) -> torch.Tensor:
    kw = {"dtype": _dtype_or_none(inputs["dtype"]), "device": device_of(inputs)}
    if inputs["overload"] == "default":
        return torch.ops.aten.arange.default(inputs["end"], **kw)
    if inputs["overload"] == "start":
        return torch.ops.aten.arange.start(inputs["start"], inputs["end"], **kw)
    return torch.ops.aten.arange.start_step(inputs["start"], inputs["end"], inputs["step"], **kw)


def _arange_cost(case: dict[str, Any], inputs: dict[str, Any]) -> Cost:
    n = max(0, math.ceil((case["end"] - case.get("start", 0)) / case.get("step", 1)))
    floats = any(isinstance(case.get(k), float) for k in ("start", "end", "step"))
    dtype = case.get("dtype") or ("float32" if floats else "int64")
    return Cost(flops=0.0, bytes=float(n * dtype_of(dtype).itemsize), dtype=dtype)


ARANGE = aten_spec(
    "arange",
    ["start_step", "start", "default"],
    category="creation",
    description=(
        "Return the 1-D tensor [start, start + step, ...] of length ceil((end - start) / step), element i "
        "being start + i * step computed in the accumulation type and cast to `dtype` (round to nearest). "
        "Without `dtype`: int64 when start, end and step are all integers, else the default float dtype."
    ),
    invoke=_arange_invoke,
    cases={
        "smoke": [
            {"start": 0, "end": 128, "step": 1, "dtype": "float32"},
            {"start": 3, "end": 256, "step": 5, "dtype": "int32"},
            {"start": 1, "end": 200, "step": 2, "dtype": "bfloat16"},
        ],
        "full": product(
            start=[0, 1, 3], step=[1, 2, 5], end=[128, 256, 1024], dtype=FLOAT_DTYPES + ALL_INT_DTYPES + [None]
        ),
        "edge": [
            {"overload": "default", "end": 1000},
            {"overload": "start", "start": -7, "end": 9, "dtype": "int16"},
            {"start": 10, "end": -10, "step": -3, "dtype": "int64"},
            {"start": 5, "end": 5, "step": 1, "dtype": "float32"},
            {"start": 2**40, "end": 2**40 + 1000, "step": 7},
            {"start": 0.0, "end": 1.0, "step": 0.1, "exact": False},
            {"start": -1.5, "end": 2.5, "step": 0.25, "dtype": "float16"},
            {"start": 0, "end": 60000, "step": 1, "dtype": "float16", "exact": False},
            {"start": 0, "end": 4097, "step": 1, "dtype": "bfloat16", "exact": False},
        ],
        "perf": [
            {"start": 0, "end": 1 << 24, "step": 1, "dtype": "int64"},
            {"start": 0, "end": 1 << 24, "step": 1, "dtype": "float32"},
            {"start": 0, "end": 16384, "step": 1, "dtype": "int32"},
        ],
    },
    make_inputs=_arange_inputs,
    compare=compare_per_case(exact_default=True),
    exact=True,
    cost=_arange_cost,
    fidelity=(
        "Reference: the built-in aten.arange. full = upstream's 189 distinct cases: start {0, 1, 3} x step "
        "{1, 2, 5} x end {128, 256, 1024} x dtype {fp16, fp32, bf16, int16, int32, int64, None}, compared "
        "bit-exactly like upstream. Upstream multiplies these by device {GPU, None} x pin_memory {False, None} "
        "to 756; device=None builds a CPU tensor the candidate's GPU kernel never sees, and pin_memory does not "
        "change the op, so we keep the 189 that exercise the candidate. The torch call with three positional "
        "scalars is aten.arange.start_step; `default` and `start` appear in the edge tier. Fractional steps are "
        "compared with the dtype tolerance (the last bit depends on the accumulation precision), and so are the "
        "two edge cases counting past 2048 in fp16/bf16: PyTorch's CPU kernel does not round those to nearest (it "
        "gives 32768 for fp16 arange element 32785, RNE gives 32800), so the reference bits are platform-dependent."
    ),
    notes="Integer-valued results are exact; in bf16/fp16 large integers round to nearest even.",
)


# ---- empty_strided / new_empty_strided ------------------------------------------------------------


def _strides(size: list[int], kind: str) -> list[int]:
    contig = [1] * len(size)
    for i in range(len(size) - 2, -1, -1):
        contig[i] = contig[i + 1] * size[i + 1]
    if kind in ("contig", "padded2", "expanded"):
        return contig if kind == "contig" else [2 * s for s in contig]
    reverse = [1] * len(size)  # "reversed" / "revcontig": column-major
    for i in range(1, len(size)):
        reverse[i] = reverse[i - 1] * size[i - 1]
    return reverse


def _empty_strided_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    return {
        **_device_inputs(rng),
        "size": dims_str(case["size"]),
        "stride": dims_str(_strides(case["size"], case["stride_kind"])),
        "dtype": case["dtype"],
        "overload": case.get("overload", "default"),
    }


def _empty_strided_invoke(impl: Any, inputs: dict[str, Any]) -> torch.Tensor:
    size, stride, dtype = parse_dims(inputs["size"]), parse_dims(inputs["stride"]), dtype_of(inputs["dtype"])
    if inputs["overload"] == "out":
        out = torch.empty(0, dtype=dtype, device=device_of(inputs))
        return torch.ops.aten.empty_strided.out(size, stride, out=out)
    return torch.ops.aten.empty_strided.default(size, stride, dtype=dtype, device=device_of(inputs))


def _storage_cost(case: dict[str, Any], inputs: dict[str, Any]) -> Cost:
    return Cost(flops=0.0, bytes=0.0, dtype=case["dtype"])  # allocation only: nothing must be read or written


_EMPTY_OK = "the contents of an empty tensor are undefined: only its shape, strides, dtype and device are checked"

EMPTY_STRIDED = aten_spec(
    "empty_strided",
    ["default", "out"],
    category="creation",
    description=(
        "Allocate an uninitialized tensor with the given size and strides (elements beyond the strided "
        "footprint unused), dtype and device. The out variant resizes `out` to `size` (row-major strides "
        "in current PyTorch) and returns it."
    ),
    invoke=_empty_strided_invoke,
    cases={
        "smoke": [
            {"size": [2, 3], "stride_kind": "padded2", "dtype": "float32"},
            {"size": [8, 16, 4], "stride_kind": "reversed", "dtype": "bfloat16", "overload": "out"},
        ],
        "full": product(
            size=[[1024], [2, 3], [128, 256], [512, 512], [8, 16, 4]],
            stride_kind=["contig", "reversed", "padded2"],
            dtype=FLOAT_DTYPES,
            overload=["default", "out"],
        ),
        "edge": [
            {"size": [0, 5], "stride_kind": "contig", "dtype": "float32"},
            {"size": [], "stride_kind": "contig", "dtype": "int64"},
            {"size": [3, 1, 5], "stride_kind": "reversed", "dtype": "uint8"},
        ],
        "perf": [{"size": [16384, 4096], "stride_kind": "contig", "dtype": "bfloat16"}],
    },
    make_inputs=_empty_strided_inputs,
    compare=compare_metadata,
    exact=True,
    cost=_storage_cost,
    constant_output_ok=_EMPTY_OK,
    fidelity=(
        "Reference: the built-in aten.empty_strided. full = upstream's 90 cases: size {(1024,), (2, 3), "
        "(128, 256), (512, 512), (8, 16, 4)} x strides {contiguous, column-major, contiguous x 2} x {fp16, fp32, "
        "bf16} x {default, out}. We compare size, stride, dtype and device type, as upstream asserts; "
        "upstream's extra step (copy_ the same data into both and compare) exercises copy_, not this op."
    ),
)


def _new_empty_strided_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    inputs = _empty_strided_inputs(case, rng)
    inputs["self"] = values(rng, [1], case["dtype"])
    inputs["pass_dtype"] = bool(case.get("pass_dtype", True))
    return inputs


def _new_empty_strided_invoke(impl: Any, inputs: dict[str, Any]) -> torch.Tensor:
    size, stride, self = parse_dims(inputs["size"]), parse_dims(inputs["stride"]), inputs["self"]
    if inputs["overload"] == "out":
        out = torch.empty(1, dtype=self.dtype, device=self.device)
        return torch.ops.aten.new_empty_strided.out(self, size, stride, out=out)
    dtype = dtype_of(inputs["dtype"]) if inputs["pass_dtype"] else None
    return torch.ops.aten.new_empty_strided.default(self, size, stride, dtype=dtype)


NEW_EMPTY_STRIDED = aten_spec(
    "new_empty_strided",
    ["default", "out"],
    category="creation",
    description=(
        "self.new_empty_strided(size, stride, dtype=None): an uninitialized tensor with the given size and "
        "strides on self's device, with `dtype` or else self's dtype. The out variant resizes `out` to "
        "`size` (row-major strides) and returns it."
    ),
    invoke=_new_empty_strided_invoke,
    cases={
        "smoke": [
            {"size": [2, 3], "stride_kind": "revcontig", "dtype": "float16"},
            {"size": [2, 3], "stride_kind": "expanded", "dtype": "float32", "overload": "out"},
        ],
        "full": product(
            size=[[2, 3], [128, 256], [512, 512]],
            dtype=FLOAT_DTYPES,
            stride_kind=["contig", "revcontig", "expanded"],
            pass_dtype=[True, False],
        )
        + product(
            size=[[2, 3], [128, 256], [512, 512]],
            dtype=FLOAT_DTYPES,
            stride_kind=["contig", "revcontig", "expanded"],
            overload=["out"],
        ),
        "edge": [
            {"size": [0, 4], "stride_kind": "contig", "dtype": "float32"},
            {"size": [7, 1, 3], "stride_kind": "revcontig", "dtype": "int32"},
        ],
        "perf": [{"size": [16384, 4096], "stride_kind": "contig", "dtype": "bfloat16"}],
    },
    make_inputs=_new_empty_strided_inputs,
    compare=compare_metadata,
    exact=True,
    cost=_storage_cost,
    constant_output_ok=_EMPTY_OK,
    fidelity=(
        "Reference: the built-in aten.new_empty_strided. full = upstream's 81 cases: size {(2, 3), (128, 256), "
        "(512, 512)} x {fp16, fp32, bf16} x strides {contiguous, column-major, contiguous x 2} x pass_dtype "
        "{True, False} (54, default overload) + the same without pass_dtype for the out overload (27). "
        "Upstream fills both outputs with the same pattern and compares them, which only checks that the "
        "strided footprint is writable; we compare size, stride, dtype and device type."
    ),
)


# ---- full / zeros --------------------------------------------------------------------------------


def _full_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    return {
        **_device_inputs(rng),
        "size": dims_str(case["shape"]),
        "dtype": case["dtype"],
        "fill_value": case.get("fill_value", 0),
        "also_default_dtype": bool(case.get("also_default_dtype", True)),
    }


def _full_invoke(impl: Any, inputs: dict[str, Any]) -> Any:
    size, device = parse_dims(inputs["size"]), device_of(inputs)
    typed = torch.ops.aten.full.default(size, inputs["fill_value"], dtype=dtype_of(inputs["dtype"]), device=device)
    if not inputs["also_default_dtype"]:
        return typed
    # upstream calls torch.full twice per case: without dtype (inferred from the fill value), then with it
    return torch.ops.aten.full.default(size, inputs["fill_value"], device=device), typed


def _zeros_invoke(impl: Any, inputs: dict[str, Any]) -> Any:
    size, device = parse_dims(inputs["size"]), device_of(inputs)
    typed = torch.ops.aten.zeros.default(size, dtype=dtype_of(inputs["dtype"]), device=device)
    if not inputs["also_default_dtype"]:
        return typed
    return torch.ops.aten.zeros.default(size, device=device), typed


_ALL_DTYPES = ["bool"] + ALL_INT_DTYPES + ALL_FLOAT_DTYPES

FULL = aten_spec(
    "full",
    ["default"],
    category="creation",
    description=(
        "Return a tensor of the given size filled with fill_value converted to `dtype`; without `dtype` "
        "the dtype follows the value (bool -> bool, int -> int64, float -> the default float dtype)."
    ),
    invoke=_full_invoke,
    cases={
        "smoke": [
            {"shape": [3, 33], "dtype": "float16", "fill_value": 3.1415926},
            {"shape": [7], "dtype": "int32", "fill_value": 2},
            {"shape": [2, 5, 17], "dtype": "bool", "fill_value": False},
        ],
        "full": product(shape=POINTWISE_SHAPES, dtype=_ALL_DTYPES, fill_value=[3.1415926, 2, False]),
        "edge": [
            {"shape": [0, 3], "dtype": "float32", "fill_value": 1.5},
            {"shape": [33, 65], "dtype": "float16", "fill_value": 65504.0},
            {"shape": [33, 65], "dtype": "float32", "fill_value": float("nan")},
            {"shape": [33, 65], "dtype": "bfloat16", "fill_value": float("-inf")},
            {"shape": [33, 65], "dtype": "int64", "fill_value": -(2**62)},
            {"shape": [33, 65], "dtype": "int8", "fill_value": -128},
            {"shape": [33, 65], "dtype": "float32", "fill_value": -0.0},
        ],
        "perf": [
            {"shape": [16384, 14336], "dtype": "bfloat16", "fill_value": 1.0, "also_default_dtype": False},
            {"shape": [4096, 4096], "dtype": "float32", "fill_value": float("-inf"), "also_default_dtype": False},
        ],
    },
    make_inputs=_full_inputs,
    exact=True,
    cost=write_only_cost(),
    constant_output_ok=_ZERO_ONE_OK + " (the exact fill value, dtype and shape are checked bit for bit)",
    fidelity=(
        "Reference: the built-in aten.full. full = upstream's 144 cases: POINTWISE_SHAPES x {bool, int16, int32, "
        "int64, fp16, fp32, bf16, fp64} x fill_value {3.1415926, 2, False}; each case makes upstream's two calls "
        "(without dtype, then with it) and returns both outputs, compared bit-exactly like upstream."
    ),
    notes="The fill value is converted to the dtype with round-to-nearest (3.1415926 -> fp16 3.140625).",
)

ZEROS = aten_spec(
    "zeros",
    ["default"],
    category="creation",
    description="Return a tensor of the given size filled with zeros of `dtype` (default: the default float dtype).",
    invoke=_zeros_invoke,
    cases={
        "smoke": [{"shape": [3, 33], "dtype": "bfloat16"}, {"shape": [7], "dtype": "int64"}],
        "full": product(shape=POINTWISE_SHAPES, dtype=_ALL_DTYPES),
        "edge": [
            {"shape": [0, 3], "dtype": "float32"},
            {"shape": [33, 65], "dtype": "uint8"},
            {"shape": [1, 1, 1, 1, 1, 129], "dtype": "complex64"},
        ],
        "perf": [
            {"shape": [16384, 14336], "dtype": "bfloat16", "also_default_dtype": False},
            {"shape": [2, 4096, 16, 8, 128], "dtype": "float16", "also_default_dtype": False},
        ],
    },
    make_inputs=_full_inputs,
    exact=True,
    cost=write_only_cost(),
    constant_output_ok=_ZERO_ONE_OK + " (dtype, shape and exact zeros are checked)",
    fidelity=(
        "Reference: the built-in aten.zeros. full = upstream's 48 cases: POINTWISE_SHAPES x {bool, int16, int32, "
        "int64, fp16, fp32, bf16, fp64}; each case makes upstream's two calls (without dtype, then with it) and "
        "returns both outputs, compared bit-exactly like upstream."
    ),
)


# ---- zeros_like / ones_like / new_ones -----------------------------------------------------------


def _like_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    inputs: dict[str, Any] = {}
    laid_out(inputs, "self", rng, case["shape"], case["dtype"], case.get("layout", "contiguous"))
    inputs["out_dtype"] = case.get("out_dtype", "")
    return inputs


def _zeros_like_invoke(impl: Any, inputs: dict[str, Any]) -> torch.Tensor:
    return torch.ops.aten.zeros_like.default(arg(inputs, "self"), dtype=_dtype_or_none(inputs["out_dtype"]))


def _ones_like_invoke(impl: Any, inputs: dict[str, Any]) -> torch.Tensor:
    return torch.ops.aten.ones_like.default(arg(inputs, "self"), dtype=_dtype_or_none(inputs["out_dtype"]))


def _like_cost(case: dict[str, Any], inputs: dict[str, Any]) -> Cost:
    dtype = case.get("out_dtype") or case["dtype"]
    return Cost(flops=0.0, bytes=float(nbytes(case["shape"], dtype)), dtype=dtype)


_LIKE_EDGE = [
    {"shape": [0, 3], "dtype": "float32"},
    {"shape": [33, 65], "dtype": "int32"},
    {"shape": [64, 48], "dtype": "float16", "layout": "transposed"},
    {"shape": [64, 48], "dtype": "bfloat16", "layout": "strided"},
    {"shape": [64, 48], "dtype": "float32", "out_dtype": "int64"},
    {"shape": [64, 48], "dtype": "bool"},
]


def _like_spec(op: str, value: str, invoke: Any) -> Any:
    return aten_spec(
        op,
        ["default"],
        category="creation",
        description=(
            f"Return a tensor shaped like `self` (same device, dtype unless `dtype` is given, strides of a "
            f"dense input preserved) filled with {value}."
        ),
        invoke=invoke,
        cases={
            "smoke": [{"shape": [3, 33], "dtype": "float32"}, {"shape": [2, 5, 17], "dtype": "bfloat16"}],
            "full": product(shape=POINTWISE_SHAPES, dtype=FLOAT_DTYPES),
            "edge": _LIKE_EDGE,
            "perf": [{"shape": [16384, 14336], "dtype": "bfloat16"}, {"shape": [4096, 128256], "dtype": "float32"}],
        },
        make_inputs=_like_inputs,
        exact=True,
        cost=_like_cost,
        constant_output_ok=_ZERO_ONE_OK + f" ({value}; dtype and shape are checked)",
        fidelity=(
            f"Reference: the built-in aten.{op}. full = upstream's 18 cases: POINTWISE_SHAPES x {{fp16, fp32, "
            "bf16}}, compared bit-exactly (upstream's input is torch.empty; ours is random, which does not "
            "matter to the result). Output strides are not checked, like upstream."
        ),
    )


ZEROS_LIKE = _like_spec("zeros_like", "zeros", _zeros_like_invoke)
ONES_LIKE = _like_spec("ones_like", "ones", _ones_like_invoke)


def _new_ones_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    return {
        "self": values(rng, case["self_shape"], "float32"),
        "size": dims_str(case["size"]),
        "dtype": case["dtype"],
        "overload": case.get("overload", "default"),
    }


def _new_ones_invoke(impl: Any, inputs: dict[str, Any]) -> torch.Tensor:
    size, dtype, self = parse_dims(inputs["size"]), dtype_of(inputs["dtype"]), inputs["self"]
    if inputs["overload"] == "out":
        out = torch.empty(size, dtype=dtype, device=self.device)
        return torch.ops.aten.new_ones.out(self, size, out=out)
    return torch.ops.aten.new_ones.default(self, size, dtype=dtype)


NEW_ONES = aten_spec(
    "new_ones",
    ["default", "out"],
    category="creation",
    description=(
        "self.new_ones(size, dtype=...): a tensor of the given size filled with ones, on self's device, "
        "with `dtype` (default: self's dtype). The out variant fills the given `out` tensor."
    ),
    invoke=_new_ones_invoke,
    cases={
        "smoke": [
            {"self_shape": [2, 3], "size": [3, 33], "dtype": "bfloat16"},
            {"self_shape": [2, 3], "size": [2, 5, 7], "dtype": "float16", "overload": "out"},
        ],
        "full": product(
            self_shape=[[2, 3], [128, 256]], size=[[2, 3], [128, 256], [32, 16, 8], [512, 512]], dtype=FLOAT_DTYPES
        )
        + product(
            self_shape=[[2, 3], [64, 64]],
            size=[[2, 3], [128, 256], [16, 8, 4], [512, 512]],
            dtype=FLOAT_DTYPES,
            overload=["out"],
        ),
        "edge": [
            {"self_shape": [4], "size": [0, 3], "dtype": "float32"},
            {"self_shape": [4], "size": [], "dtype": "int32"},
            {"self_shape": [4], "size": [33, 65], "dtype": "bool"},
        ],
        "perf": [{"self_shape": [1], "size": [16384, 4096], "dtype": "bfloat16"}],
    },
    make_inputs=_new_ones_inputs,
    exact=True,
    cost=write_only_cost("size"),
    constant_output_ok=_ZERO_ONE_OK + " (ones; dtype and shape are checked)",
    fidelity=(
        "Reference: the built-in aten.new_ones. full = upstream's 48 cases: self (2, 3) / (128, 256) x size "
        "{(2, 3), (128, 256), (32, 16, 8), (512, 512)} x {fp16, fp32, bf16} with dtype= (default overload), and "
        "self (2, 3) / (64, 64) x size {(2, 3), (128, 256), (16, 8, 4), (512, 512)} x dtype for the out "
        "overload; self is fp32 throughout, as upstream. Compared bit-exactly."
    ),
)


# ---- scalar_tensor ---------------------------------------------------------------------------------


def _scalar_tensor_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    return {
        **_device_inputs(rng),
        "value": case["value"],
        "dtype": case["dtype"],
        "overload": case.get("overload", "default"),
    }


def _scalar_tensor_invoke(impl: Any, inputs: dict[str, Any]) -> torch.Tensor:
    dtype, device = dtype_of(inputs["dtype"]), device_of(inputs)
    if inputs["overload"] == "out":
        return torch.ops.aten.scalar_tensor.out(inputs["value"], out=torch.empty((), dtype=dtype, device=device))
    return torch.ops.aten.scalar_tensor.default(inputs["value"], dtype=dtype, device=device)


SCALAR_TENSOR = aten_spec(
    "scalar_tensor",
    ["default", "out"],
    category="creation",
    description="Return a 0-d tensor holding the Python number `s` converted to `dtype` (round to nearest).",
    invoke=_scalar_tensor_invoke,
    cases={
        "smoke": [{"value": 3.14159, "dtype": "float16"}, {"value": -7, "dtype": "bfloat16", "overload": "out"}],
        "full": product(
            value=[-7, -1, 0, 3, 12345, -1.5, 2.75, 3.14159],
            dtype=["float32", "float16", "bfloat16"],
            overload=["default", "out"],
        ),
        "edge": [
            {"value": float("nan"), "dtype": "float32"},
            {"value": 1e30, "dtype": "float16"},
            {"value": 2**40 + 1, "dtype": "int64"},
            {"value": True, "dtype": "bool"},
        ],
        "perf": [{"value": 2.75, "dtype": "float32"}],
    },
    make_inputs=_scalar_tensor_inputs,
    exact=True,
    cost=lambda case, inputs: Cost(flops=0.0, bytes=float(dtype_of(case["dtype"]).itemsize), dtype=case["dtype"]),
    constant_output_ok="the output is the given scalar: its value, dtype and 0-d shape are checked bit for bit",
    fidelity=(
        "Reference: the built-in aten.scalar_tensor. full = upstream's 48 cases: value {-7, -1, 0, 3, 12345, "
        "-1.5, 2.75, 3.14159} x {fp32, fp16, bf16} x {default, out}; upstream uses the dtype tolerance, we "
        "compare bit-exactly (one rounding of a given number has a single right answer)."
    ),
)


# ---- fill_ / zero_ ----------------------------------------------------------------------------------


def _fill_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
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
    if case.get("overload") == "Tensor":
        inputs["value"] = torch.tensor(case["value"], dtype=dtype_of(case["dtype"]), device=rng.device)
    elif "value" in case:
        inputs["value"] = case["value"]
    return inputs


def _fill_invoke(impl: Any, inputs: dict[str, Any]) -> torch.Tensor:
    value = inputs["value"]
    if isinstance(value, torch.Tensor):
        torch.ops.aten.fill_.Tensor(arg(inputs, "self"), value)
    else:
        torch.ops.aten.fill_.Scalar(arg(inputs, "self"), value)
    return inputs["self"]  # the whole base: elements outside a strided view must stay untouched


def _zero_invoke(impl: Any, inputs: dict[str, Any]) -> torch.Tensor:
    torch.ops.aten.zero_.default(arg(inputs, "self"))
    return inputs["self"]


def _inplace_cost(case: dict[str, Any], inputs: dict[str, Any]) -> Cost:
    return Cost(flops=0.0, bytes=float(nbytes(case["shape"], case["dtype"])), dtype=case["dtype"])


FILL_ = aten_spec(
    "fill_",
    ["Scalar", "Tensor"],
    category="creation",
    description=(
        "In place: set every element of `self` (which may be a strided view) to `value` converted to self's "
        "dtype, and return `self`. fill_.Tensor takes the value from a 0-d tensor."
    ),
    invoke=_fill_invoke,
    cases={
        "smoke": [
            {"shape": [3, 33], "dtype": "float32", "value": 9, "overload": "Scalar"},
            {"shape": [2, 5, 17], "dtype": "bfloat16", "value": 1, "overload": "Tensor"},
        ],
        "full": product(shape=POINTWISE_SHAPES, value=[0, 1, 9], dtype=FLOAT_DTYPES, overload=["Scalar", "Tensor"]),
        "edge": [
            {"shape": [0, 3], "dtype": "float32", "value": 1.5, "overload": "Scalar"},
            {"shape": [64, 48], "dtype": "float16", "value": -2.5, "overload": "Scalar", "layout": "strided"},
            {"shape": [64, 48], "dtype": "float32", "value": 3.0, "overload": "Tensor", "layout": "transposed"},
            {"shape": [33, 65], "dtype": "int32", "value": -7, "overload": "Scalar"},
            {"shape": [33, 65], "dtype": "bfloat16", "value": float("nan"), "overload": "Scalar"},
            {"shape": [33, 65], "dtype": "float16", "value": 65504.0, "overload": "Scalar"},
            {"shape": [33, 65], "dtype": "bool", "value": True, "overload": "Scalar"},
        ],
        "perf": [
            {"shape": [16384, 14336], "dtype": "bfloat16", "value": 1, "overload": "Scalar"},
            {"shape": [4096, 4096], "dtype": "float32", "value": 0, "overload": "Tensor"},
        ],
    },
    make_inputs=_fill_inputs,
    exact=True,
    mutates=("self",),
    cost=_inplace_cost,
    constant_output_ok="filling with a constant is the operator (the exact value, dtype and shape are checked)",
    fidelity=(
        "Upstream deleted this operator's test (research/upstream_kgb.md §2.1); a fragment of it survives inside "
        "upstream's embedding test (fill_ with a tensor value on torch.ones, compared exactly). Our cases are "
        "ours, modelled on FlagGems' fill test: POINTWISE_SHAPES x value {0, 1, 9} x {fp16, fp32, bf16} x "
        "{fill_.Scalar, fill_.Tensor (0-d tensor of self's dtype)} = 108, on random (not constant) inputs, "
        "compared bit-exactly on the whole input buffer."
    ),
)

ZERO_ = aten_spec(
    "zero_",
    ["default"],
    category="creation",
    description="In place: set every element of `self` (which may be a strided view) to zero and return `self`.",
    invoke=_zero_invoke,
    cases={
        "smoke": [{"shape": [3, 33], "dtype": "float32"}, {"shape": [2, 5, 17], "dtype": "int64"}],
        "full": product(shape=POINTWISE_SHAPES, dtype=FLOAT_DTYPES + ALL_INT_DTYPES),
        "edge": [
            {"shape": [0, 3], "dtype": "float32"},
            {"shape": [64, 48], "dtype": "bfloat16", "layout": "strided"},
            {"shape": [64, 48], "dtype": "float16", "layout": "transposed"},
            {"shape": [33, 65], "dtype": "bool"},
            {"shape": [33, 65], "dtype": "float32", "special": True},
        ],
        "perf": [{"shape": [16384, 14336], "dtype": "bfloat16"}, {"shape": [2, 4096, 16, 8, 128], "dtype": "float16"}],
    },
    make_inputs=_fill_inputs,
    exact=True,
    mutates=("self",),
    cost=_inplace_cost,
    constant_output_ok="zeroing is the operator (dtype, shape and exact zeros are checked)",
    fidelity=(
        "Reference: the built-in aten.zero_. full = upstream's 36 cases: POINTWISE_SHAPES x {fp16, fp32, bf16, "
        "int16, int32, int64} on random inputs (integers in [1, 100) upstream, [-100, 100) here), compared "
        "bit-exactly on the whole input buffer."
    ),
)


# ---- affine_grid_generator ---------------------------------------------------------------------------


def _affine_inputs(case: dict[str, Any], rng: Rng) -> dict[str, Any]:
    size = case["size"]
    k = len(size) - 2
    return {
        "theta": values(rng, [size[0], k, k + 1], case["dtype"]),
        "size": dims_str(size),
        "align_corners": bool(case["align_corners"]),
        "overload": case.get("overload", "default"),
    }


def _affine_call(theta: torch.Tensor, size: list[int], align_corners: bool, overload: str) -> torch.Tensor:
    if overload == "out":
        k = len(size) - 2
        out = torch.empty([size[0], *size[2:], k], dtype=theta.dtype, device=theta.device)
        return torch.ops.aten.affine_grid_generator.out(theta, size, align_corners, out=out)
    return torch.ops.aten.affine_grid_generator.default(theta, size, align_corners)


def _affine_invoke(impl: Any, inputs: dict[str, Any]) -> torch.Tensor:
    return _affine_call(inputs["theta"], parse_dims(inputs["size"]), inputs["align_corners"], inputs["overload"])


def _affine_reference(inputs: dict[str, Any]) -> torch.Tensor:
    theta = inputs["theta"]
    grid = _affine_call(theta.double(), parse_dims(inputs["size"]), inputs["align_corners"], "default")
    return grid.to(theta.dtype)


def _affine_case(size: list[int], dtype: str, align_corners: bool, overload: str = "default") -> dict[str, Any]:
    return {
        "size": size,
        "dtype": dtype,
        "align_corners": align_corners,
        "overload": overload,
        "reduce_dim": len(size) - 1,
    }


def _affine_cost(case: dict[str, Any], inputs: dict[str, Any]) -> Cost:
    size = case["size"]
    k = len(size) - 2
    points = size[0] * math.prod(size[2:])
    out = points * k * dtype_of(case["dtype"]).itemsize
    return Cost(
        flops=float(2 * points * k * (k + 1)),
        bytes=float(nbytes([size[0], k, k + 1], case["dtype"]) + out),
        dtype=case["dtype"],
    )


_AFFINE_SIZES = [[1, 3, 4, 4], [2, 3, 64, 64], [4, 3, 128, 256], [1, 2, 4, 4, 4], [2, 1, 8, 16, 16], [1, 1, 16, 32, 32]]

AFFINE_GRID_GENERATOR = aten_spec(
    "affine_grid_generator",
    ["default", "out"],
    category="creation",
    description=(
        "Build the sampling grid of F.affine_grid: for size (N, C, H, W) output[n, h, w] = theta[n] @ "
        "(x_w, y_h, 1), shape (N, H, W, 2); for (N, C, D, H, W) output (N, D, H, W, 3) from (x_w, y_h, z_d, 1). "
        "Coordinates are linspace(-1, 1, S) when align_corners, else linspace(-1, 1, S) * (S - 1) / S."
    ),
    invoke=_affine_invoke,
    cases={
        "smoke": [_affine_case([1, 3, 4, 4], "float32", True), _affine_case([1, 2, 4, 4, 4], "float16", False, "out")],
        "full": [
            _affine_case(s, dt, ac, ov)
            for ov in ("default", "out")
            for s in _AFFINE_SIZES
            for dt in ("float32", "float16", "bfloat16")
            for ac in (True, False)
        ],
        "edge": [
            _affine_case([3, 1, 1, 1], "float32", False),
            _affine_case([2, 1, 1, 7], "float32", True),
            _affine_case([0, 3, 4, 4], "float32", True),
            _affine_case([1, 1, 3, 5, 9], "bfloat16", False),
        ],
        "perf": [
            _affine_case([32, 3, 512, 512], "float32", False),
            _affine_case([8, 1, 64, 128, 128], "float16", True),
        ],
    },
    make_inputs=_affine_inputs,
    reference=_affine_reference,
    compare=compare_per_case(exact_default=False),
    cost=_affine_cost,
    fidelity=(
        "full = upstream's 72 cases: size {(1,3,4,4), (2,3,64,64), (4,3,128,256), (1,2,4,4,4), (2,1,8,16,16), "
        "(1,1,16,32,32)} x {fp32, fp16, bf16} x align_corners x {default, out}, tolerance with R = k + 1. "
        "Reference: the built-in op evaluated on theta in float64, then cast to the dtype (FlagGems' "
        "upcast-reference convention). Upstream compares with the native op in the same dtype instead; we "
        "checked that the native fp16/bf16 op on CPU misses an fp64-accurate grid on ~1.5%/5% of elements "
        "(it rounds the base grid and products in low precision) while an fp32 computation cast at the end "
        "passes all of them, so the accurate reference is the fair one."
    ),
    notes="Compute in fp32 and round once at the end; for 2-D sizes the last output dim is (x, y) = (w, h) order.",
)

SPECS = [
    ARANGE,
    EMPTY_STRIDED,
    NEW_EMPTY_STRIDED,
    FULL,
    ZEROS,
    ZEROS_LIKE,
    ONES_LIKE,
    NEW_ONES,
    SCALAR_TENSOR,
    FILL_,
    ZERO_,
    AFFINE_GRID_GENERATOR,
]
