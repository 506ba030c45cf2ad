"""Specs cut down for harness tests: aten::add and saxpy with one small perf case (timing runs through
the interpreter on the fake timed device), aten::mul on a strided input view."""

from __future__ import annotations

import dataclasses

from operators import registry
from tests.harness.specs import ADD, SAXPY

PERF_TINY = dataclasses.replace(ADD, cases={**ADD.cases, "perf": [{"shape": [300], "dtype": "float32", "alpha": 0.5}]})

SAXPY_PERF_TINY = dataclasses.replace(SAXPY, cases={**SAXPY.cases, "perf": [{"n": 300, "alpha": 1.5}]})

# a strided view as input (every other element of a [33, 130] base), as the catalog's edge tier has
STRIDED_MUL = dataclasses.replace(
    registry.get("aten::mul"),
    cases={"smoke": [{"shape": [33, 65], "dtype": "float32", "layout": "strided", "variant": "Tensor"}]},
)

SPECS = [PERF_TINY, SAXPY_PERF_TINY, STRIDED_MUL]
