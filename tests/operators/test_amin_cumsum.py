"""aten::amin and aten::cumsum: the specs' inputs and references, and the Triton reference solutions on the
cases that failed on the H200.

- every amin.out case hands over an `out` already shaped like torch's result (dim=0 once sized it for a
  reduction over every dim);
- cumsum's reference keeps torch's result dtypes and sums float16/bfloat16 in float32, rounding once (torch's
  CUDA kernel keeps a half-precision running sum, which a float32-accumulating kernel cannot match on long scans);
- the solutions pass amin.out with dim=0 and a 40999-long float16 scan, compared as the harness compares.
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path
from types import ModuleType

import pytest
import torch

from evaluator.harness.evaluate import compare
from operators import registry
from operators.catalog.aten.group_b_helpers import aten_overload
from operators.spec import Rng

AMIN = registry.get("aten::amin")
CUMSUM = registry.get("aten::cumsum")
TIERS = ("smoke", "full", "edge")
LONG_SCAN = [2, 40999, 3]  # the H200's failing (200, 40999, 3) case with fewer rows; dim 1 is scanned


def _load_solution(name: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.setenv("TRITON_INTERPRET", "1")  # read when @triton.jit decorates, i.e. at module execution
    path = Path(registry.REFERENCE_SOLUTIONS_DIR) / f"aten__{name}.py"
    module_spec = importlib.util.spec_from_file_location(f"amin_cumsum_solution_{name}", path)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


def test_amin_out_buffers_have_the_result_shape() -> None:
    out_cases = [c for tier in TIERS for c in AMIN.tier(tier) if c["overload"] == "out"]
    assert any(c["dim"] == 0 for c in out_cases)
    for case in out_cases:
        inputs = AMIN.make_inputs(case, Rng(0))
        dim = [] if inputs["dim"] is None else inputs["dim"]
        expected = aten_overload("amin")(inputs["self"], dim, inputs["keepdim"])
        assert inputs["out"].shape == expected.shape, case


def test_amin_solution_writes_out_for_dim_0(monkeypatch: pytest.MonkeyPatch) -> None:
    solution = _load_solution("amin", monkeypatch)
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


def test_cumsum_solution_passes_a_long_float16_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    solution = _load_solution("cumsum", monkeypatch)
    case = {"shape": LONG_SCAN, "dtype": "float16", "dim": 1}
    inputs = CUMSUM.make_inputs(case, Rng(0))
    ref = CUMSUM.run_reference(dict(inputs))
    out = solution.cumsum(inputs["self"], inputs["dim"])
    result = compare(CUMSUM, out, ref, case, inputs, interpreter=True)
    assert result.passed, result.reason
