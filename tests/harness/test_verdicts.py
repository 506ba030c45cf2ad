"""One test per verdict on the CPU interpreter, plus the controls: correct Triton solutions pass."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.harness import RESULT_SCHEMA, VERDICTS
from evaluator.harness.contract import Result
from tests.harness import specs
from tests.harness.conftest import SOLUTIONS, read
from tests.harness.specs_perf import STRIDED_MUL

REPO_ROOT = Path(__file__).resolve().parents[2]

RESULT_KEYS = {
    "schema",
    "verdict",
    "reason",
    "operator",
    "tier",
    "seed_kind",
    "cases",
    "timing",
    "sol_pct",
    "findings",
    "environment",
    "stderr_tail",
    "duration_s",
}
ENV_KEYS = {"chip", "device_type", "device_name", "driver", "torch", "triton", "python", "harness_version"}

CONTROLS = [
    (specs.ADD, "aten__add.py"),
    (specs.SOFTMAX, "aten__softmax.py"),  # CompositeImplicitAutograd: reached through the Autograd key
    (specs.RMS_NORM, "vllm13__rms_norm.py"),
    (specs.SAXPY, "cublas__cublasSaxpy_v2.py"),
]


def check_schema(result: dict) -> None:
    assert RESULT_KEYS <= set(result)
    assert result["schema"] == RESULT_SCHEMA
    assert result["verdict"] in VERDICTS
    assert ENV_KEYS <= set(result["environment"])
    assert result["timing"] is None  # never timed on the interpreter
    json.dumps(result)  # plain JSON all the way down
    assert Result.from_dict(result).to_dict() == result  # the contract reads it back unchanged
    for case in result["cases"]:
        assert set(case) >= {"params", "passed", "max_abs_err", "max_rel_err", "reason"}


@pytest.mark.parametrize(("spec", "file_name"), CONTROLS, ids=[s.id for s, _ in CONTROLS])
def test_correct_solutions_pass(harness, spec, file_name):
    result = harness.evaluate(spec, read(SOLUTIONS / file_name), tier="smoke", timeout_s=120)
    check_schema(result)
    assert result["verdict"] == "correct", result["reason"]
    assert result["findings"] == []
    assert all(case["passed"] for case in result["cases"])
    assert len(result["cases"]) == len(spec.tier("smoke"))
    assert result["environment"]["device_type"] == "cpu"
    assert result["seed_kind"] == "public"


def test_strided_input_views_come_back_unchanged(harness):
    # without shared memory the child sends inputs back by value; a strided view is not "modified"
    # because it is not dense (a false positive the edge tier hit for every binary operator on cpu)
    source = (REPO_ROOT / "operators/solutions/triton_reference/aten__mul.py").read_text()
    result = harness.evaluate(STRIDED_MUL, source, tier="smoke")
    assert result["verdict"] == "correct", result["reason"]


def test_compile_error_on_syntax(harness):
    result = harness.evaluate(specs.ADD, "def add_Tensor(self, other, *, alpha=1)\n    return self\n", tier="smoke")
    check_schema(result)
    assert result["verdict"] == "compile_error"
    assert "SyntaxError" in result["reason"]


def test_compile_error_on_import_failure(harness):
    source = "import triton\nimport torch\nraise ImportError('no such helper')\ndef add_Tensor(self, other, *, alpha=1):\n    pass\n"
    result = harness.evaluate(specs.ADD, source, tier="smoke")
    assert result["verdict"] == "compile_error"
    assert "no such helper" in result["reason"]


def test_missing_entrypoint(harness):
    result = harness.evaluate(specs.ADD, "import triton\n\ndef add(self, other):\n    return self\n", tier="smoke")
    check_schema(result)
    assert result["verdict"] == "missing_entrypoint"
    assert "add_Tensor" in result["reason"]


def test_runtime_error_names_the_exception(harness):
    source = "import triton\n\ndef add_Tensor(self, other, *, alpha=1):\n    raise ValueError('boom 42')\n"
    result = harness.evaluate(specs.ADD, source, tier="smoke")
    check_schema(result)
    assert result["verdict"] == "runtime_error"
    assert "ValueError: boom 42" in result["reason"]
    assert "boom 42" in result["stderr_tail"] or result["stderr_tail"] == ""


def test_timeout_kills_and_harness_continues(harness):
    source = "import triton\n\ndef add_Tensor(self, other, *, alpha=1):\n    while True:\n        pass\n"
    result = harness.evaluate(specs.ADD, source, tier="smoke", timeout_s=3)
    check_schema(result)
    assert result["verdict"] == "timeout"
    assert result["duration_s"] < 30
    after = harness.evaluate(specs.ADD, read(SOLUTIONS / "aten__add.py"), tier="smoke")
    assert after["verdict"] == "correct"


def test_incorrect_reports_case_and_errors(harness):
    wrong = read(SOLUTIONS / "aten__add.py").replace("a + alpha * b", "a - alpha * b")
    result = harness.evaluate(specs.ADD, wrong, tier="smoke")
    check_schema(result)
    assert result["verdict"] == "incorrect"
    assert result["cases"][0]["passed"] is False
    assert result["cases"][0]["max_abs_err"] > 0.01
    assert "elements outside" in result["cases"][0]["reason"]


def test_cheat_detected_names_layer(harness):
    source = (
        "import torch\nimport triton\n\ndef add_Tensor(self, other, *, alpha=1):\n    return torch.add(self, other)\n"
    )
    result = harness.evaluate(specs.ADD, source, tier="smoke")
    check_schema(result)
    assert result["verdict"] == "cheat_detected"
    assert result["findings"][0]["layer"] == "static"
    assert "torch.add" in result["findings"][0]["detail"]


def test_secret_seed_never_in_result(harness):
    result = harness.evaluate(
        specs.ADD, read(SOLUTIONS / "aten__add.py"), tier="smoke", seed=918273645, secret_seed=True
    )
    assert result["verdict"] == "correct"
    assert result["seed_kind"] == "secret"
    assert "918273645" not in json.dumps(result)


def test_different_seeds_draw_different_inputs(harness):
    # the cache-replay exploit relies on inputs repeating; two draws per case must differ
    from evaluator.harness.judging import derive_seed

    seeds = {derive_seed(0, "aten::add", "smoke", case, draw) for case in range(3) for draw in range(2)}
    assert len(seeds) == 6


def test_fail_fast_stops_a_failing_tier_and_says_how_many_cases_were_not_run():
    """Runners stop a tier once it is incorrect anyway (a timeout is for kernels that hang): the
    reason says how many cases were checked and how many were not run."""
    from evaluator.harness import Harness
    from tests.harness import specs

    wrong = (SOLUTIONS / "aten__add.py").read_text(encoding="utf-8").replace("alpha * ", "1.01 * alpha * ")
    with Harness(device="cpu", fail_fast_after=1) as harness:
        result = harness.evaluate(specs.ADD, wrong, tier="full", timeout_s=120)
    total = len(specs.ADD.tier("full"))
    assert result["verdict"] == "incorrect"
    assert result["cases_skipped"] == total - 1 and len(result["cases"]) == 1
    assert f"1 of the 1 cases checked failed ({total - 1} more not run: fail-fast)" in result["reason"]


@pytest.mark.parametrize("value", ["-1", "x"])
def test_fail_fast_refuses_a_bad_count(value):
    from evaluator.__main__ import _parser

    with pytest.raises(SystemExit) as exit_info:
        _parser().parse_args(["check", "--operator", "aten::add", "--solution", "x.py", "--fail-fast", value])
    assert exit_info.value.code == 2
