"""Shared builders for the elementwise ATen specs (no SPECS here).

Case convention for every elementwise spec in this package:
- ``shape`` (list), ``dtype`` (name); binary ops may add ``other_shape`` (broadcasting) and scalar
  parameters (``scalar``, ``alpha``, ``eps``...);
- ``variant`` picks the ATen overload a case calls (``"default"``, ``"out"``, ``"Tensor"``,
  ``"tensor_scalar"``...); ``invoke`` reads it from the inputs (``inputs["variant"]``) because
  invoke sees inputs only;
- ``layout``: ``"contiguous"`` (default), ``"transposed"`` (the last two dims are a transposed view)
  or ``"strided"`` (every other element of the last dim), for the edge tier;
- ``specials``: true to plant NaN, +-inf, +-0 and large values at the start of the first input
  (edge tier, only where the operator's semantics for them are defined).

``.out`` variants allocate their output buffer inside ``invoke`` (``torch.empty`` like the input,
or a strided view when ``out_layout == "noncontiguous"``), as upstream's tests do, so no input is
written by them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

from operators.catalog.common import (
    FLOAT_DTYPES,
    PERF_TOKEN_HIDDEN,
    SMOKE_POINTWISE_SHAPES,
    elementwise_cost,
)
from operators.spec import Case, Cost, Inputs, OperatorSpec, Rng, dtype_of

Draw = Callable[[Rng, Sequence[int], str], torch.Tensor]

# Values planted by ``specials`` cases: every op that accepts them defines a result for each.
SPECIAL_VALUES = (float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 1e4, -1e4)

EDGE_LAYOUTS = [
    {"shape": [64, 48], "layout": "transposed"},
    {"shape": [33, 65], "layout": "strided"},
    {"shape": [3, 5, 7, 9], "layout": "transposed"},
]
SMOKE_DTYPES = ("float32", "float16", "bfloat16")
EDGE_SIZES = [[1], [1023], [3, 1, 257], [2, 3, 5, 7, 11, 3], [0], [4, 0, 3], []]


def wrapper_name(op: str, overload: str) -> str:
    """Upstream's wrapper naming: `<op>_<overload>`, plain `<op>` for the default overload."""
    return op if overload in ("default", "") else f"{op}_{overload.replace('.', '_')}"


def schema_text(op: str, overloads: Sequence[str]) -> str:
    packet = getattr(torch.ops.aten, op)
    return "\n".join(str(getattr(packet, ov)._schema) for ov in overloads)


def randn(scale: float = 1.0, shift: float = 0.0) -> Draw:
    def draw(rng: Rng, shape: Sequence[int], dtype: str) -> torch.Tensor:
        return rng.randn(shape, dtype, scale=scale, shift=shift)

    return draw


def uniform(low: float, high: float) -> Draw:
    def draw(rng: Rng, shape: Sequence[int], dtype: str) -> torch.Tensor:
        # drawn in fp32 then cast, so half-precision inputs stay inside [low, high]
        return rng.uniform(shape, low, high, "float32").to(dtype_of(dtype))

    return draw


def small_integers(low: int, high: int) -> Draw:
    """Integer-valued floats in [low, high): many exact ties, for equality tests."""

    def draw(rng: Rng, shape: Sequence[int], dtype: str) -> torch.Tensor:
        return rng.randint(low, high, shape, "int64").to(dtype_of(dtype))

    return draw


def _layout_base_shape(shape: Sequence[int], layout: str) -> list[int]:
    shape = list(shape)
    if layout == "transposed" and len(shape) >= 2:
        shape[-1], shape[-2] = shape[-2], shape[-1]
    elif layout == "strided" and shape:
        shape[-1] = shape[-1] * 2
    return shape


def _layout_view(base: torch.Tensor, layout: str) -> torch.Tensor:
    if layout == "transposed" and base.dim() >= 2:
        return base.transpose(-1, -2)
    if layout == "strided" and base.dim() >= 1:
        return base[..., ::2]
    return base


def build_tensor(
    rng: Rng, shape: Sequence[int], dtype: str, draw: Draw, *, layout: str = "contiguous", specials: bool = False
) -> torch.Tensor:
    """A tensor of `shape` drawn by `draw`, laid out as asked (the view keeps the logical shape)."""
    base = draw(rng, _layout_base_shape(shape, layout), dtype)
    if specials and base.is_floating_point() and base.numel() > 0:
        flat = base.view(-1)
        values = torch.tensor(SPECIAL_VALUES[: flat.numel()], dtype=torch.float32).to(base.dtype)
        flat[: values.numel()] = values.to(base.device)
    return _layout_view(base, layout)


def out_buffer(like: torch.Tensor, dtype: torch.dtype | None = None, *, noncontiguous: bool = False) -> torch.Tensor:
    """The `out=` buffer of a `.out` call: fresh memory, dense or every other column."""
    dtype = dtype or like.dtype
    if noncontiguous and like.dim() >= 1:
        shape = list(like.shape)
        base = torch.empty([*shape[:-1], shape[-1] * 2], dtype=dtype, device=like.device)
        return base[..., ::2]
    return torch.empty(like.shape, dtype=dtype, device=like.device)


def unary_inputs(draw: Draw, **extra_params: Any) -> Callable[[Case, Rng], Inputs]:
    """make_inputs for ops with one tensor input `self`; case keys listed in extra_params (with
    their defaults) are copied into the inputs."""

    def make_inputs(case: Case, rng: Rng) -> Inputs:
        x = build_tensor(
            rng,
            case["shape"],
            case["dtype"],
            draw,
            layout=case.get("layout", "contiguous"),
            specials=case.get("specials", False),
        )
        inputs: Inputs = {
            "self": x,
            "variant": case.get("variant", "default"),
            "out_layout": case.get("out_layout", "contiguous"),
        }
        for key, default in extra_params.items():
            inputs[key] = case.get(key, default)
        return inputs

    return make_inputs


def unary_invoke(op: str, *arg_names: str) -> Callable[[Any, Inputs], Any]:
    """invoke for `op(self, *args)` and `op.out(self, *args, out=...)`."""
    packet = getattr(torch.ops.aten, op)

    def invoke(impl: Any, inputs: Inputs) -> Any:
        args = [inputs[name] for name in arg_names]
        if inputs["variant"] == "out":
            noncontiguous = inputs["out_layout"] == "noncontiguous"
            result = packet.out(inputs["self"], *args, out=out_buffer(inputs["self"], noncontiguous=noncontiguous))
            # the harness compares dense tensors: hand it a dense copy of what landed in the strided view
            return result.contiguous() if noncontiguous else result
        return packet.default(inputs["self"], *args)

    return invoke


def unary_cases(
    *,
    full_shapes: Sequence[Sequence[int]],
    variants: Sequence[str] = ("default",),
    full_dtypes: Sequence[str] = tuple(FLOAT_DTYPES),
    smoke_variants: Sequence[str] | None = None,
    specials: bool = True,
    extra: dict[str, Any] | None = None,
    perf_dtypes: Sequence[str] = ("bfloat16", "float16"),
) -> dict[str, list[Case]]:
    """The four tiers for a unary float op. `full` is upstream's shape x dtype x variant product;
    `extra` adds fixed parameters to every case."""
    extra = extra or {}
    smoke_variants = list(smoke_variants or variants)
    smoke = [
        {"shape": list(shape), "dtype": dtype, "variant": smoke_variants[i % len(smoke_variants)], **extra}
        for i, (shape, dtype) in enumerate(zip(SMOKE_POINTWISE_SHAPES, SMOKE_DTYPES, strict=True))
    ]
    full = [
        {"shape": list(shape), "dtype": dtype, "variant": variant, **extra}
        for variant in variants
        for shape in full_shapes
        for dtype in full_dtypes
    ]
    edge: list[Case] = []
    for i, shape in enumerate(EDGE_SIZES):
        edge.append(
            {"shape": shape, "dtype": ("float32", "float16", "bfloat16")[i % 3], "variant": variants[0], **extra}
        )
    for item in EDGE_LAYOUTS:
        edge.append({**item, "dtype": "float32", "variant": variants[0], **extra})
    if "out" in variants:
        edge.append({"shape": [17, 31], "dtype": "float16", "variant": "out", "layout": "transposed", **extra})
    if specials:
        edge.append({"shape": [4, 25], "dtype": "float32", "variant": variants[0], "specials": True, **extra})
        edge.append({"shape": [4, 25], "dtype": "bfloat16", "variant": variants[0], "specials": True, **extra})
    perf = [
        {"shape": list(shape), "dtype": dtype, "variant": variants[0], **extra}
        for shape in PERF_TOKEN_HIDDEN
        for dtype in perf_dtypes
    ]
    return {"smoke": smoke, "full": full, "edge": edge, "perf": perf}


def elementwise_spec(
    *,
    op: str,
    overloads: Sequence[str],
    description: str,
    invoke: Callable[[Any, Inputs], Any],
    make_inputs: Callable[[Case, Rng], Inputs],
    cases: dict[str, list[Case]],
    fidelity: str,
    notes: str = "",
    flops: float = 1.0,
    exact: bool = False,
    mutates: Sequence[str] = (),
    category: str = "elementwise",
    reference: Callable[[Inputs], Any] | None = None,
    constant_output_ok: str = "",
    cost: Callable[[Case, Inputs], Cost] | None = None,
) -> OperatorSpec:
    """One elementwise ATen spec: signature and entrypoints come from the overloads exercised; the cost is
    elementwise_cost(flops) unless given."""
    return OperatorSpec(
        id=f"aten::{op}",
        category=category,
        description=description,
        signature=schema_text(op, overloads),
        entrypoints=tuple(wrapper_name(op, ov) for ov in overloads),
        invoke=invoke,
        cases=cases,
        make_inputs=make_inputs,
        fidelity=fidelity,
        reference=reference,
        exact=exact,
        mutates=tuple(mutates),
        cost=cost if cost is not None else elementwise_cost(flops),
        constant_output_ok=constant_output_ok,
        mc=True,
        notes=notes,
    )


def mutated(self_tensor: torch.Tensor) -> torch.Tensor:
    """What an in-place call left in `self`; a dense copy when self is a strided view, because the
    harness compares dense outputs."""
    return self_tensor if self_tensor.is_contiguous() else self_tensor.contiguous()


def opmath_reference(invoke: Callable[[Any, Inputs], Any], *, inplace: bool = False) -> Callable[[Inputs], Any]:
    """The op evaluated the way PyTorch's CUDA kernels evaluate it: fp16/bf16 inputs upcast to fp32
    ("opmath"), one rounding to the result dtype at the end; fp32/fp64 inputs unchanged.

    Used where PyTorch's cpu kernel rounds an intermediate to fp16/bf16 instead (alpha * other in
    add/sub, the clamp bounds in logit), which moves results by one or more half-type ulps and
    makes the cpu reference disagree with the CUDA one (and with itself across layouts)."""

    def reference(inputs: Inputs) -> Any:
        tensors = [v for v in (inputs.get("self"), inputs.get("other")) if isinstance(v, torch.Tensor)]
        dtype = tensors[0].dtype
        wide = {
            k: v.to(torch.float32) if isinstance(v, torch.Tensor) and v.dtype in HALF_DTYPES else v
            for k, v in inputs.items()
        }
        out = invoke(None, wide)
        if inplace:
            inputs["self"].copy_(out)
            return mutated(inputs["self"])
        return out.to(dtype)

    return reference


HALF_DTYPES = (torch.float16, torch.bfloat16)

OPMATH_FIDELITY = (
    " For fp16/bf16 the reference evaluates the op on fp32 copies of the inputs and rounds once, as PyTorch's "
    "CUDA kernels do (opmath): its cpu kernel rounds an intermediate to the half type instead, which moved "
    "results by 1 ulp (and far more near cancellation) on our edge cases. fp32 cases use the built-in op "
    "unchanged."
)

UNARY_FIDELITY = (
    "Reference is the built-in ATen op called through the same overload as the candidate, in the input "
    "dtype, as upstream does (upstream_kgb.md §2.1). Checked on cpu against a float64 evaluation of the "
    "same formula on the smoke and edge inputs (within the upstream tolerance)."
)
