"""aten::add with one small perf case: timing runs through the interpreter on the fake timed device."""

from __future__ import annotations

import dataclasses

from tests.harness.specs import ADD, SAXPY

PERF_TINY = dataclasses.replace(ADD, cases={**ADD.cases, "perf": [{"shape": [300], "dtype": "float32", "alpha": 0.5}]})

SAXPY_PERF_TINY = dataclasses.replace(SAXPY, cases={**SAXPY.cases, "perf": [{"n": 300, "alpha": 1.5}]})

SPECS = [PERF_TINY, SAXPY_PERF_TINY]
