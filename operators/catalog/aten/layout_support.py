"""Shared helpers for the layout, indexing, creation and copy operator modules (no SPECS here).

Conventions used by those modules:
- A case names the logical shape of each tensor argument and, where it tests memory layout, a
  `layout` ("contiguous", "transposed" (last two dims), "strided" (every other element of the last
  dim), "expanded" (dim 0 broadcast from 1), "rows2" (every other row), "transposed_rows2"). `make_inputs` builds a contiguous
  *base* tensor and `invoke` turns it into the requested view right before the call. The harness
  clones inputs per consumer, and a clone of a strided or expanded view is contiguous again, so the
  view must be built after cloning for the layout to reach the candidate.
- Views are built only with metadata ops that are not the operator under test (transpose, slicing,
  expand), so a candidate's registration of that operator never runs while its input is prepared.
- Out-variant overloads allocate their `out` buffers inside `invoke` (from the case dtype and the
  device of the inputs), so no input is mutated by an out call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

from operators.catalog.common import tensor_bytes
from operators.spec import Comparison, Cost, OperatorSpec, Rng, dtype_of
from operators.tolerance import compare_outputs

FLOAT_DTYPES = ["float16", "float32", "bfloat16"]
ALL_FLOAT_DTYPES = ["float16", "float32", "bfloat16", "float64"]  # upstream ALL_FLOAT_DTYPES (fp64 supported)
INT_DTYPES = ["int16", "int32"]  # upstream INT_DTYPES
ALL_INT_DTYPES = ["int16", "int32", "int64"]  # upstream ALL_INT_DTYPES
POINTWISE_SHAPES = [[], [1], [1024, 1024], [20, 320, 15], [16, 128, 64, 60], [16, 7, 57, 32, 29]]
REDUCTION_SHAPES = [[1, 2], [4096, 256], [200, 40999, 3]]
SPECIAL_SHAPES = [[1], [1024, 1024], [20, 320, 15], [16, 128, 64, 1280], [16, 7, 57, 32, 29]]


def entry_name(op: str, overload: str) -> str:
    """Upstream wrapper name: `<op>` for the default overload, else `<op>_<overload>`."""
    return op if overload == "default" else f"{op}_{overload}"


def schema(op: str, overload: str) -> str:
    return str(getattr(getattr(torch.ops.aten, op), overload)._schema)


def aten_spec(op: str, overloads: Sequence[str], **fields: Any) -> OperatorSpec:
    """An ATen spec whose signature and entrypoints follow from the overloads its cases exercise."""
    signature = "\n".join(f"{schema(op, o)}    # def {entry_name(op, o)}(...)" for o in overloads)
    return OperatorSpec(
        id=f"aten::{op}",
        signature=signature,
        entrypoints=tuple(entry_name(op, o) for o in overloads),
        mc=True,
        **fields,
    )


def values(rng: Rng, shape: Sequence[int], dtype: str, *, special: bool = False) -> torch.Tensor:
    """Random contents for any dtype: randn for floats/complex, [-100, 100) for integers (>= 0 for
    uint8), fair coins for bool. `special` plants +inf, -inf, NaN, -0.0 and the dtype's max and tiny
    values at the front of a floating tensor (copies must carry them bit for bit)."""
    dt = dtype_of(dtype)
    if dt == torch.bool:
        return rng.bernoulli(shape)
    if dt.is_floating_point or dt.is_complex:
        t = rng.randn(shape, dt)
        if special and dt.is_floating_point and t.numel() >= 7:
            info = torch.finfo(dt)
            planted = torch.tensor(
                [float("inf"), float("-inf"), float("nan"), -0.0, info.max, -info.max, info.tiny],
                dtype=dt,
                device=t.device,
            )
            t.view(-1)[:7] = planted
        return t
    low = 0 if dt == torch.uint8 else -100
    return rng.randint(low, 100, shape, dt)


def base_shape(shape: Sequence[int], layout: str) -> list[int]:
    """Shape of the contiguous tensor whose `layout` view has logical shape `shape`."""
    shape = list(shape)
    if layout == "contiguous":
        return shape
    if layout == "transposed":
        return shape[:-2] + [shape[-1], shape[-2]]
    if layout == "strided":
        return shape[:-1] + [2 * shape[-1]]
    if layout == "expanded":
        return [1] + shape[1:]
    if layout == "rows2":  # upstream's `x[::2]` along dim 0
        return [2 * shape[0]] + shape[1:]
    if layout == "transposed_rows2":  # upstream's `base.transpose(0, 1)[::2]` (2-D)
        return [shape[1], 2 * shape[0]]
    raise ValueError(f"unknown layout {layout!r}")


def layout_tag(layout: str, shape: Sequence[int]) -> str:
    """The string `invoke` reads back to rebuild the view (inputs hold strings, not int lists)."""
    return f"expanded:{'x'.join(str(int(s)) for s in shape)}" if layout == "expanded" else layout


def view_of(base: torch.Tensor, tag: str) -> torch.Tensor:
    """The non-contiguous view of `base` named by `layout_tag(...)` (see module docstring)."""
    if tag == "contiguous":
        return base
    if tag == "transposed":
        return base.transpose(-1, -2)
    if tag == "strided":
        return base[..., ::2]
    if tag == "rows2":
        return base[::2]
    if tag == "transposed_rows2":
        return base.transpose(0, 1)[::2]
    if tag.startswith("expanded:"):
        return base.expand(*[int(s) for s in tag.removeprefix("expanded:").split("x") if s])
    raise ValueError(f"unknown layout {tag!r}")


def laid_out(
    inputs: dict[str, Any],
    name: str,
    rng: Rng,
    shape: Sequence[int],
    dtype: str,
    layout: str = "contiguous",
    *,
    special: bool = False,
) -> None:
    """Put the base tensor for argument `name` and its layout tag into `inputs`."""
    inputs[name] = values(rng, base_shape(shape, layout), dtype, special=special)
    inputs[f"{name}_layout"] = layout_tag(layout, shape)


def arg(inputs: dict[str, Any], name: str) -> torch.Tensor:
    """Input `name` in the layout its case asked for (built here, after the harness's clone)."""
    return view_of(inputs[name], inputs.get(f"{name}_layout", "contiguous"))


def device_of(inputs: dict[str, Any]) -> torch.device:
    return torch.device(inputs["device"])


# ---- comparisons ------------------------------------------------------------------------------


def compare_per_case(*, exact_default: bool) -> Callable[[Any, Any, dict[str, Any], dict[str, Any]], Comparison]:
    """Default comparison, but exactness per case (`case["exact"]`), and the tolerance's reduction
    length from `case["reduce_dim"]` (default 1)."""

    def compare(out: Any, ref: Any, case: dict[str, Any], inputs: dict[str, Any]) -> Comparison:
        return compare_outputs(
            out, ref, exact=bool(case.get("exact", exact_default)), reduce_dim=int(case.get("reduce_dim", 1))
        )

    return compare


def _significant_strides(t: torch.Tensor) -> tuple[int, ...]:
    """Strides that address memory: those of dimensions longer than 1 (none for an empty tensor)."""
    if t.numel() == 0:
        return ()
    return tuple(st for size, st in zip(t.shape, t.stride(), strict=True) if size > 1)


def compare_layout_too(out: Any, ref: Any, case: dict[str, Any], inputs: dict[str, Any]) -> Comparison:
    """Values (bit-exact unless `case["exact"]` is False), and the memory layout the case promises:
    `case["check"]` is "contiguous" (the output must be contiguous) or "strides" (the output's
    strides must equal the reference's wherever they matter: dimensions longer than 1)."""
    values_cmp = compare_outputs(out, ref, exact=bool(case.get("exact", True)))
    if not values_cmp.passed:
        return values_cmp
    check = case.get("check")
    if check == "contiguous" and not out.is_contiguous():
        return Comparison(False, reason=f"output must be contiguous; strides {tuple(out.stride())}")
    if check == "strides" and _significant_strides(out) != _significant_strides(ref):
        return Comparison(False, reason=f"output strides {tuple(out.stride())} != expected {tuple(ref.stride())}")
    return values_cmp


def compare_metadata(out: Any, ref: Any, case: dict[str, Any], inputs: dict[str, Any]) -> Comparison:
    """For outputs whose contents are undefined (empty_strided): shape, stride, dtype, device."""
    if not isinstance(out, torch.Tensor):
        return Comparison(False, reason=f"expected a tensor, got {type(out).__name__}")
    for what, got, want in (
        ("shape", tuple(out.shape), tuple(ref.shape)),
        ("stride", tuple(out.stride()), tuple(ref.stride())),
        ("dtype", out.dtype, ref.dtype),
        ("device type", out.device.type, ref.device.type),
    ):
        if got != want:
            return Comparison(False, reason=f"{what} {got} != expected {want}")
    return Comparison(True, 0.0, 0.0)


def compare_python_scalar(out: Any, ref: Any, case: dict[str, Any], inputs: dict[str, Any]) -> Comparison:
    """item / _local_scalar_dense: a Python number of the reference's type with the same value."""
    if isinstance(out, torch.Tensor) or type(out) is not type(ref):
        return Comparison(False, reason=f"expected a Python {type(ref).__name__}, got {type(out).__name__}")
    same = out == ref or (out != out and ref != ref)  # NaN equals NaN here
    return Comparison(same, reason="" if same else f"{out!r} != expected {ref!r}")


# ---- costs ------------------------------------------------------------------------------------


def read_write_cost(case: dict[str, Any], inputs: dict[str, Any], out_bytes: float, *, dtype: str = "") -> Cost:
    """Bytes = every input tensor read once + `out_bytes` written; no FLOPs."""
    return Cost(flops=0.0, bytes=float(tensor_bytes(inputs)) + out_bytes, dtype=dtype or case.get("dtype", "float32"))


def numel(shape: Sequence[int]) -> int:
    n = 1
    for s in shape:
        n *= int(s)
    return n


def nbytes(shape: Sequence[int], dtype: str) -> int:
    return numel(shape) * dtype_of(dtype).itemsize


def write_only_cost(shape_key: str = "shape"):
    """Creation ops: the output is written once, nothing is read."""

    def cost(case: dict[str, Any], inputs: dict[str, Any]) -> Cost:
        return Cost(flops=0.0, bytes=float(nbytes(case[shape_key], case["dtype"])), dtype=case["dtype"])

    return cost


def view_cost(case: dict[str, Any], inputs: dict[str, Any]) -> Cost:
    """View ops move no data: their least cost is metadata only (0 bytes)."""
    return Cost(flops=0.0, bytes=0.0, dtype=case.get("dtype", "float32"))


def copy_cost(case: dict[str, Any], inputs: dict[str, Any]) -> Cost:
    """Copies: the logical input read once and the same number of elements written in the output dtype."""
    src = case.get("shape") or []
    out_dtype = case.get("out_dtype") or case["dtype"]
    # an expanded (stride-0) input holds, and is read at, fewer bytes than its logical shape
    reads = min(nbytes(src, case["dtype"]), tensor_bytes(inputs))
    return Cost(flops=0.0, bytes=float(reads + nbytes(src, out_dtype)), dtype=case["dtype"])
