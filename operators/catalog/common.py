"""Shared case constants and cost helpers for catalog modules (no SPECS here).

The upstream constants are FlagGems' `accuracy_utils` values as upstream KernelGenBench uses them
(research/upstream_kgb.md §2 "Shapes and dtypes").
"""

from __future__ import annotations

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


def tensor_bytes(*items: Any) -> int:
    """Bytes of all tensors in items (nested lists/tuples/dicts allowed), each counted once."""
    seen: set[int] = set()
    total = 0

    def visit(x: Any) -> None:
        nonlocal total
        if isinstance(x, torch.Tensor):
            key = id(x)
            if key not in seen:
                seen.add(key)
                total += x.numel() * x.element_size()
        elif isinstance(x, (list, tuple)):
            for y in x:
                visit(y)
        elif isinstance(x, dict):
            for y in x.values():
                visit(y)

    for item in items:
        visit(item)
    return total


def elementwise_cost(flops_per_element: float = 1.0, *, out_factor: float = 1.0):
    """Cost model for ops reading every input once and writing one output shaped like the
    broadcast of the inputs: bytes = inputs + out_factor * largest input; flops per element."""

    def cost(case: dict[str, Any], inputs: dict[str, Any]) -> Cost:
        tensors = [v for v in inputs.values() if isinstance(v, torch.Tensor)]
        biggest = max(tensors, key=lambda t: t.numel(), default=None)
        n = biggest.numel() if biggest is not None else 1
        out_bytes = n * (biggest.element_size() if biggest is not None else 4) * out_factor
        dtype = str(biggest.dtype).removeprefix("torch.") if biggest is not None else "float32"
        return Cost(flops=flops_per_element * n, bytes=tensor_bytes(inputs) + out_bytes, dtype=dtype)

    return cost
