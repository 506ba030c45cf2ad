"""aten::amin and aten::cumsum: the specs' inputs and references, and the Triton reference solutions on the
cases that failed on the H200.

- every amin.out case hands over an `out` already shaped like torch's result (dim=0 once sized it for a
  reduction over every dim);
- cumsum's reference keeps torch's result dtypes and sums float16/bfloat16 in float32, rounding once (torch's
  CUDA kernel keeps a half-precision running sum, which a float32-accumulating kernel cannot match on long scans);
- the solutions pass amin.out with dim=0 and a 40999-long float16 scan, compared as the harness compares.
"""

from __future__ import annotations

import math
from types import ModuleType

import pytest
import torch

from evaluator.harness.judging import compare
from operators import registry
from operators.catalog.aten.group_b_helpers import aten_overload
from operators.spec import Rng
from tests.operators.solution_files import load_reference_solution

AMIN = registry.get("aten::amin")
CUMSUM = registry.get("aten::cumsum")
TIERS = ("smoke", "full", "edge")
LONG_SCAN = [2, 40999, 3]  # the H200's failing (200, 40999, 3) case with fewer rows; dim 1 is scanned


def _load_solution(name: str) -> ModuleType:
    return load_reference_solution(f"aten__{name}")


def test_amin_out_buffers_have_the_result_shape() -> None:
    out_cases = [c for tier in TIERS for c in AMIN.tier(tier) if c["overload"] == "out"]
    assert any(c["dim"] == 0 for c in out_cases)
    for case in out_cases:
        inputs = AMIN.make_inputs(case, Rng(0))
        dim = [] if inputs["dim"] is None else inputs["dim"]
        expected = aten_overload("amin")(inputs["self"], dim, inputs["keepdim"])
        assert inputs["out"].shape == expected.shape, case


def test_amin_solution_writes_out_for_dim_0() -> None:
    solution = _load_solution("amin")
    case = {"shape": [16, 17, 8], "dtype": "float16", "dim": 0, "keepdim": False, "overload": "out"}
    ref = AMIN.run_reference(AMIN.make_inputs(case, Rng(0)))
    inputs = AMIN.make_inputs(case, Rng(0))
    out = solution.amin_out(inputs["self"], inputs["dim"], inputs["keepdim"], out=inputs["out"])
    assert out is inputs["out"]
    result = compare(AMIN, out, ref, case, inputs, interpreter=True)
    assert result.passed, result.reason


def test_cumsum_reference_keeps_torch_result_dtypes() -> None:
    small = [c for tier in TIERS for c in CUMSUM.tier(tier) if math.prod(c["shape"]) <= 1 << 20]
    assert {c["dtype"] for c in small} >= {"float16", "bfloat16", "int16", "int32"}
    for case in small:
        inputs = CUMSUM.make_inputs(case, Rng(0))
        ref = CUMSUM.run_reference(dict(inputs))
        native = CUMSUM.invoke(None, dict(inputs))
        assert (ref.dtype, ref.shape) == (native.dtype, native.shape), case


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_cumsum_reference_is_the_float64_prefix_sum_rounded_once(dtype: str) -> None:
    case = {"shape": LONG_SCAN, "dtype": dtype, "dim": 1}
    inputs = CUMSUM.make_inputs(case, Rng(0))
    ref = CUMSUM.run_reference(dict(inputs))
    assert torch.equal(ref, torch.cumsum(inputs["self"].double(), 1).to(ref.dtype))


def test_cumsum_solution_passes_a_long_float16_scan() -> None:
    solution = _load_solution("cumsum")
    case = {"shape": LONG_SCAN, "dtype": "float16", "dim": 1}
    inputs = CUMSUM.make_inputs(case, Rng(0))
    ref = CUMSUM.run_reference(dict(inputs))
    out = solution.cumsum(inputs["self"], inputs["dim"])
    result = compare(CUMSUM, out, ref, case, inputs, interpreter=True)
    assert result.passed, result.reason
