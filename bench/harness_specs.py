"""Specs for the harness benchmarks: the test fixtures' add and softmax with perf shapes spanning
tiny (graph-timed, < 10 µs) through 20-50 µs (where the event bracket is a few per cent) to large
(> 50 µs) kernels on an H200; the times are ncu's on the H200."""

from __future__ import annotations

import dataclasses

from tests.harness.specs import ADD, SOFTMAX

ADD_BENCH = dataclasses.replace(
    ADD,
    cases={
        **ADD.cases,
        "perf": [
            {"shape": [4096], "dtype": "float32", "alpha": 1.0},  # ~2-3 µs: CUDA graph
            {"shape": [1024, 1024], "dtype": "bfloat16", "alpha": 0.5},  # ~5 µs: CUDA graph
            {"shape": [4096, 3584], "dtype": "bfloat16", "alpha": 0.5},  # ~21 µs
            {"shape": [4096, 4096], "dtype": "bfloat16", "alpha": 0.5},  # ~23 µs
            {"shape": [8192, 4096], "dtype": "bfloat16", "alpha": 0.5},  # ~45 µs
            {"shape": [16384, 8192], "dtype": "bfloat16", "alpha": 0.5},  # ~180 µs
        ],
    },
)
SOFTMAX_BENCH = dataclasses.replace(
    SOFTMAX,
    cases={
        **SOFTMAX.cases,
        "perf": [
            {"shape": [4096, 4096], "dtype": "float32"},  # ~31 µs
            {"shape": [8192, 4096], "dtype": "float32"},  # ~64 µs
        ],
    },
)

SPECS = [ADD_BENCH, SOFTMAX_BENCH]
SOLUTIONS = {
    "aten::add": "tests/harness/solutions/aten__add.py",
    "aten::softmax": "tests/harness/solutions/aten__softmax.py",
}
