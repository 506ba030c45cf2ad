"""Shared building blocks for the group-B ATen specs (reductions, softmax/scan, losses, matmuls,
random and backward operators). No SPECS here.

Inputs are built by these helpers from case dicts; `layout` names how a tensor is laid out in memory:
"contiguous", "transposed" (last two dims swapped in storage: a dense, non-contiguous view that a clone
keeps) or "permuted" (storage order reversed over all dims).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

from operators.catalog.common import tensor_bytes
from operators.spec import Cost, Rng, dtype_of

FLOAT_DTYPES = ["float16", "float32", "bfloat16"]  # upstream's FLOAT_DTYPES order


def aten_overload(op: str, overload: str = "default") -> torch._ops.OpOverload:
    return getattr(getattr(torch.ops.aten, op), overload)


def schema_text(op: str, overloads: Sequence[str]) -> str:
    """The exact ATen schemas of the overloads a spec exercises, one per line."""
    return "\n".join(str(aten_overload(op, o)._schema) for o in overloads)


def entrypoint_name(op: str, overload: str) -> str:
    """Upstream wrapper naming: `<op>_<overload>`, plain `<op>` for the default overload."""
    return op if overload == "default" else f"{op}_{overload}"


def lay_out(x: torch.Tensor, layout: str) -> torch.Tensor:
    """Return a tensor equal to x but stored as `layout` says (values unchanged)."""
    if layout == "contiguous" or x.dim() < 2:
        return x
    if layout == "transposed":
        return x.transpose(-1, -2).contiguous().transpose(-1, -2)
    if layout == "permuted":
        dims = list(range(x.dim()))[::-1]
        return x.permute(dims).contiguous().permute(dims)
    raise ValueError(f"unknown layout {layout!r}")


def randn(
    rng: Rng, shape: Sequence[int], dtype: str, layout: str = "contiguous", *, scale: float = 1.0, shift: float = 0.0
) -> torch.Tensor:
    return lay_out(rng.randn(shape, dtype, scale=scale, shift=shift), layout)


def uniform(
    rng: Rng, shape: Sequence[int], low: float, high: float, dtype: str, layout: str = "contiguous"
) -> torch.Tensor:
    return lay_out(rng.uniform(shape, low, high, dtype), layout)


def empty(shape: Sequence[int], dtype: str | torch.dtype, device: torch.device) -> torch.Tensor:
    dt = dtype_of(dtype) if isinstance(dtype, str) else dtype
    return torch.empty(tuple(shape), dtype=dt, device=device)


def numel(shape: Sequence[int]) -> int:
    n = 1
    for s in shape:
        n *= int(s)
    return n


def dtype_name(dt: torch.dtype) -> str:
    return str(dt).removeprefix("torch.")


def _to_meta(x: Any) -> Any:
    if isinstance(x, torch.Tensor):
        return torch.empty_strided(x.shape, x.stride(), dtype=x.dtype, device="meta")
    if isinstance(x, (list, tuple)):
        return type(x)(_to_meta(y) for y in x)
    return x


def output_bytes(invoke: Callable[[Any, dict[str, Any]], Any], inputs: dict[str, Any]) -> int:
    """Bytes the call writes, found by running the op on meta tensors (no data, no compute)."""
    out = invoke(None, {k: _to_meta(v) for k, v in inputs.items()})
    return tensor_bytes(out)


def io_cost(
    invoke: Callable[[Any, dict[str, Any]], Any],
    flops: Callable[[dict[str, Any], dict[str, Any]], float] = lambda case, inputs: 0.0,
    *,
    main: str = "self",
):
    """Cost: each input tensor read once (out= buffers excluded: they are only written), each output
    written once; FLOPs from `flops(case, inputs)`; the compute dtype is the main input's."""

    def cost(case: dict[str, Any], inputs: dict[str, Any]) -> Cost:
        read = tensor_bytes({k: v for k, v in inputs.items() if k not in ("out", "grad_input", "values", "indices")})
        return Cost(
            flops=float(flops(case, inputs)),
            bytes=read + output_bytes(invoke, inputs),
            dtype=dtype_name(inputs[main].dtype),
        )

    return cost


def per_element(k: float, main: str = "self") -> Callable[[dict[str, Any], dict[str, Any]], float]:
    """k FLOPs per element of the main input."""
    return lambda case, inputs: k * inputs[main].numel()


def float64_reference(invoke: Callable[[Any, dict[str, Any]], Any], *, main: str = "self"):
    """A reference that evaluates the op in float64 and rounds once to the main input's dtype (FlagGems'
    upcast convention). For composite ops torch's half-precision kernels round every intermediate and can
    overflow, while a correct kernel computing in fp32 rounds once; this reference accepts the latter."""

    def reference(inputs: dict[str, Any]) -> Any:
        wide = {
            k: v.double() if isinstance(v, torch.Tensor) and v.is_floating_point() else v for k, v in inputs.items()
        }
        result = invoke(None, wide)
        if isinstance(inputs.get("out"), torch.Tensor):
            inputs["out"].copy_(result)
            return inputs["out"]
        return result.to(inputs[main].dtype)

    return reference
