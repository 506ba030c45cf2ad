"""Shared case constants and cost helpers for catalog modules (no SPECS here).

The upstream constants are FlagGems' `accuracy_utils` values as upstream KernelGenBench uses them
(research/upstream_kgb.md §2 "Shapes and dtypes").
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import torch

from operators.spec import Cost

# upstream (QUICK_MODE=False)
POINTWISE_SHAPES = [(), (1,), (1024, 1024), (20, 320, 15), (16, 128, 64, 60), (16, 7, 57, 32, 29)]
REDUCTION_SHAPES = [(1, 2), (4096, 256), (200, 40999, 3)]
FLOAT_DTYPES = ["float16", "float32", "bfloat16"]
SCALARS = [0.001, -0.999, 100.001, -111.999]
MNK_SHAPES = [(1, 1, 32), (15, 160, 1024), (495, 5333, 71)]

# ours: tiny shapes that run in seconds under the Triton CPU interpreter
SMOKE_POINTWISE_SHAPES = [(7,), (3, 33), (2, 5, 17)]
# ours: LLM-workload shapes (tokens x hidden) large enough to time on a datacenter GPU
PERF_TOKEN_HIDDEN = [(1, 4096), (128, 8192), (4096, 4096), (16384, 14336)]


def product(**axes: Iterable[Any]) -> list[dict[str, Any]]:
    """Cartesian product of named axes as case dicts (upstream's stacked @parametrize slots)."""
    cases: list[dict[str, Any]] = [{}]
    for name, values in axes.items():
        cases = [{**c, name: list(v) if isinstance(v, tuple) else v} for c in cases for v in values]
    return cases


def unique_numel(t: torch.Tensor) -> int:
    """Elements a tensor really holds: a broadcast (stride-0) dimension is stored, and read, once."""
    if t.numel() == 0:
        return 0
    n = 1
    for size, stride in zip(t.shape, t.stride(), strict=True):
        if stride != 0:
            n *= size
    return n


def tensor_bytes(*items: Any) -> int:
    """Bytes of all tensors in items (nested lists/tuples/dicts allowed), each counted once, and an
    expanded (stride-0) view at the bytes it really holds."""
    seen: set[int] = set()
    total = 0

    def visit(x: Any) -> None:
        nonlocal total
        if isinstance(x, torch.Tensor):
            key = id(x)
            if key not in seen:
                seen.add(key)
                total += unique_numel(x) * x.element_size()
        elif isinstance(x, (list, tuple)):
            for y in x:
                visit(y)
        elif isinstance(x, dict):
            for y in x.values():
                visit(y)

    for item in items:
        visit(item)
    return total


def elementwise_cost(flops_per_element: float = 1.0, *, out_factor: float = 1.0, out_dtype: torch.dtype | None = None):
    """Cost model for ops reading every input once and writing one output shaped like the
    broadcast of the inputs: bytes = inputs (each at the bytes it holds) + out_factor x the output
    (broadcast shape, at `out_dtype`, by default the largest input's dtype: comparisons pass
    torch.bool); flops per output element."""

    def cost(case: dict[str, Any], inputs: dict[str, Any]) -> Cost:
        tensors = [v for v in inputs.values() if isinstance(v, torch.Tensor)]
        biggest = max(tensors, key=lambda t: t.numel(), default=None)
        if biggest is None:
            n = 1
        else:
            try:
                n = math.prod(torch.broadcast_shapes(*(t.shape for t in tensors)))
            except RuntimeError:  # operands that are not broadcast together (weights and the like)
                n = biggest.numel()
        size = out_dtype.itemsize if out_dtype is not None else (biggest.element_size() if biggest is not None else 4)
        out_bytes = n * size * out_factor
        dtype = str(biggest.dtype).removeprefix("torch.") if biggest is not None else "float32"
        return Cost(flops=flops_per_element * n, bytes=tensor_bytes(inputs) + out_bytes, dtype=dtype)

    return cost
