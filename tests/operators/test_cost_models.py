"""Every cost model against the bytes and arithmetic the reference really needs.

The harness's physics layer flags a timed call faster than its floor (bytes / peak bandwidth, FLOPs /
peak compute), so a cost model that counts more than the operator must move flags honest kernels
(a bool output counted at the input's element size put eq/gt/le at [16384, 14336] fp16 above ATen's
own time). For every spec, on every tier (all perf cases; an even sample of the others, or all with
KGB_COST_ALL=1), the case's inputs are built by the spec's own generator and the reference is run; its
inputs and outputs give an upper bound of the least traffic:

    bytes(every input, each at the elements it holds: a broadcast dimension once)
  + bytes(every output and every mutated input, at its real dtype)

and the cost model's bytes must not exceed it. Inputs are built on the meta device (shapes and dtypes
only: full perf shapes cost nothing); specs whose generator or reference needs values (indices drawn
from data, .item()) run on the CPU. FLOPs: torch's FlopCounterMode counts the reference's matrix
products (complex ones as 4 real products) and triangular solves; the model may not exceed that plus
16 per element touched (the elementwise epilogue: alpha, beta, scaling), or, where the reference has
no counted product, 64 per element touched."""

from __future__ import annotations

import os
from typing import Any

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from operators import registry
from operators.catalog.common import unique_numel
from operators.spec import Rng, dtype_of

SAMPLE = None if os.environ.get("KGB_COST_ALL") else 6  # cases per non-perf tier


class MetaRng(Rng):
    """The spec's generator with every draw an uninitialised meta tensor: shapes and dtypes only."""

    def __init__(self, seed: int) -> None:
        self.device = torch.device("meta")
        self.seed = seed
        self.generator = None

    def _empty(self, shape: Any, dtype: Any) -> torch.Tensor:
        return torch.empty(tuple(shape), dtype=dtype_of(dtype) if isinstance(dtype, str) else dtype, device="meta")

    def randn(self, shape, dtype="float32", *, scale=1.0, shift=0.0):
        return self._empty(shape, dtype)

    def uniform(self, shape, low, high, dtype="float32"):
        return self._empty(shape, dtype)

    def randint(self, low, high, shape, dtype="int64"):
        return self._empty(shape, dtype)

    def bernoulli(self, shape, p=0.5):
        return self._empty(shape, torch.bool)

    def randperm(self, n, dtype="int64"):
        return self._empty((n,), dtype)

    def choice(self, options):
        return options[0]


def _tensors(x: Any, out: list[torch.Tensor]) -> list[torch.Tensor]:
    if isinstance(x, torch.Tensor):
        out.append(x)
    elif isinstance(x, (list, tuple)):
        for y in x:
            _tensors(y, out)
    elif isinstance(x, dict):
        for y in x.values():
            _tensors(y, out)
    return out


def _triangular_solve_flops(a_shape, b_shape, *args, out_shape=None, left=True, **kwargs) -> int:
    batch = 1
    for d in out_shape[:-2]:
        batch *= d
    m, n = out_shape[-2], out_shape[-1]
    return batch * m * n * (m if left else n)  # m^2 n / 2 multiply-adds


def _measure(spec: Any, case: dict[str, Any], rng: Rng) -> tuple[Any, int, int, int]:
    inputs = spec.make_inputs(case, rng)
    cost = spec.cost(case, inputs)
    ins = list({id(t): t for t in _tensors(inputs, [])}.values())
    in_bytes = sum(unique_numel(t) * t.element_size() for t in ins)
    mapping = {torch.ops.aten.linalg_solve_triangular: _triangular_solve_flops}
    with FlopCounterMode(display=False, custom_mapping=mapping) as counter:
        result = spec.run_reference(inputs)
    outs = {id(t): t for t in _tensors(result, [])}
    for name in spec.mutates:
        outs.update({id(t): t for t in _tensors(inputs.get(name), [])})
    out_bytes = sum(t.numel() * t.element_size() for t in outs.values())
    elements = sum(t.numel() for t in ins) + sum(t.numel() for t in outs.values())
    flops = counter.get_total_flops() * (4 if any(t.is_complex() for t in ins) else 1)
    return cost, in_bytes + out_bytes, flops, elements


def _sample(cases: Any, k: int | None) -> list[dict[str, Any]]:
    cases = list(cases)
    if k is None or len(cases) <= k:
        return cases
    step = len(cases) / k
    return [cases[int(i * step)] for i in range(k)]


SPECS = [spec for spec in registry.all_specs() if spec.cost is not None]


def test_the_walk_covers_the_catalog():
    assert len(registry.all_specs()) >= 210
    assert len(SPECS) >= 200


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_cost_model_never_exceeds_what_the_reference_moves(spec):
    failures: list[str] = []
    checked = 0
    for tier in ("perf", "full", "smoke", "edge"):
        for case in _sample(spec.tier(tier), None if tier == "perf" else SAMPLE):
            try:
                cost, real_bytes, counted, elements = _measure(spec, case, MetaRng(0))
            except (NotImplementedError, RuntimeError):  # the generator or reference needs values
                cost, real_bytes, counted, elements = _measure(spec, case, Rng(0))
            checked += 1
            if cost.bytes > real_bytes * (1 + 1e-9) + 1:
                failures.append(f"{tier} {case}: bytes {cost.bytes:.6g} > {real_bytes:.6g} moved")
            limit = counted + 16 * elements if counted else 64 * elements
            if cost.flops > limit * (1 + 1e-9) + 1:
                failures.append(f"{tier} {case}: flops {cost.flops:.6g} > {limit:.6g} (counted {counted})")
    assert checked
    assert not failures, "\n".join(failures[:10])
