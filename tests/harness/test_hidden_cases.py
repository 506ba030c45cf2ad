"""Hidden cases of held-out runs (evaluator/harness/hidden.py): checked as extra `full`-tier cases,
never described in the result, and a failing one makes the verdict incorrect like any case."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from evaluator.harness import JOBS_SCHEMA, bundle
from evaluator.harness.evaluate import HarnessError
from evaluator.harness.harness import HarnessConfig
from evaluator.harness.hidden import HIDDEN_FAILURE, HIDDEN_PARAMS
from evaluator.runner import worker
from tests.harness import specs
from tests.harness.conftest import SOLUTIONS, read

# 3 x 419 = 1257 elements: past the public full-tier cases of specs.ADD (at most 170), and digits that
# appear nowhere else in a result
HIDDEN = {"shape": [3, 419], "dtype": "float32", "alpha": 1.5}
HIDDEN_TRACES = ("419", "1257")


def add_solution() -> str:
    return read(SOLUTIONS / "aten__add.py")


def wrong_past_512_elements() -> str:
    """The correct add, except that elements from index 512 on are never written."""
    source = add_solution()
    assert "    mask = offs < n\n" in source
    return source.replace("    mask = offs < n\n", "    mask = (offs < n) & (offs < 512)\n")


def published_text(result: dict) -> str:
    """Everything of a result that pages and the API show, less the timings and the public cases'
    error magnitudes, whose digits are noise (a max_rel_err of 1.8928175537419e-06 once held "419";
    the hidden case's errors are asserted null on their own)."""
    noise = ("timing", "max_abs_err", "max_rel_err")
    cases = [{key: value for key, value in case.items() if key not in noise} for case in result["cases"]]
    return json.dumps([result["reason"], cases, result["findings"], result["stderr_tail"]])


def test_the_wrong_solution_passes_every_public_full_case(harness):
    result = harness.evaluate(specs.ADD, wrong_past_512_elements(), tier="full", timeout_s=120)
    assert result["verdict"] == "correct", result["reason"]
    assert result["hidden_cases"] == 0


def test_a_failing_hidden_case_makes_the_verdict_incorrect_without_revealing_it(harness):
    result = harness.evaluate(
        specs.ADD, wrong_past_512_elements(), tier="full", timeout_s=120, secret_seed=True, hidden_cases=[HIDDEN]
    )
    assert result["verdict"] == "incorrect"
    assert result["hidden_cases"] == 1
    public, hidden = result["cases"][:-1], result["cases"][-1]
    assert len(public) == len(specs.ADD.tier("full")) and all(case["passed"] for case in public)
    assert hidden["params"] == HIDDEN_PARAMS and hidden["hidden"] is True and hidden["passed"] is False
    assert hidden["max_abs_err"] is None and hidden["max_rel_err"] is None
    assert "hidden" in result["reason"]
    for trace in HIDDEN_TRACES:
        assert trace not in published_text(result), trace


def test_a_correct_solution_passes_the_hidden_cases(harness):
    result = harness.evaluate(specs.ADD, add_solution(), tier="full", timeout_s=120, hidden_cases=[HIDDEN, HIDDEN])
    assert result["verdict"] == "correct", result["reason"]
    assert result["hidden_cases"] == 2
    assert [case["passed"] for case in result["cases"] if case.get("hidden")] == [True, True]
    assert "hidden case(s) passed" in result["reason"]


def test_what_the_candidate_prints_or_raises_about_a_hidden_case_is_not_published(harness):
    source = add_solution().replace(
        "def add_Tensor(self, other, *, alpha=1):\n",
        "def add_Tensor(self, other, *, alpha=1):\n"
        "    print('saw shape', tuple(self.shape), self.numel())\n"
        "    if self.numel() > 512:\n"
        "        raise ValueError(f'no kernel for shape {tuple(self.shape)} ({self.numel()} elements)')\n",
    )
    result = harness.evaluate(specs.ADD, source, tier="full", timeout_s=120, hidden_cases=[HIDDEN])
    assert result["verdict"] == "runtime_error"
    assert result["cases"][-1]["params"] == HIDDEN_PARAMS
    assert result["reason"] == HIDDEN_FAILURE
    # the published output is the public child's, which never saw a hidden input
    assert "saw shape" in result["stderr_tail"]
    for trace in HIDDEN_TRACES:
        assert trace not in published_text(result), trace


def test_hidden_cases_extend_the_full_tier_only(harness):
    with pytest.raises(HarnessError, match="'full' tier only"):
        harness.evaluate(specs.ADD, add_solution(), tier="smoke", hidden_cases=[HIDDEN])


def test_hidden_cases_need_the_keys_of_the_full_tier_cases_and_errors_quote_no_values(harness):
    with pytest.raises(HarnessError) as refused:
        harness.evaluate(specs.ADD, add_solution(), tier="full", hidden_cases=[{"shape": [3, 419], "dtype": "float32"}])
    assert "keys [dtype, shape]" in str(refused.value) and "[alpha, dtype, shape]" in str(refused.value)
    assert "419" not in str(refused.value)


class RecordingHarness:
    """Stands in for Harness in the bundle runner and the runner worker: records each evaluate call."""

    calls: list[dict] = []
    phases: list[tuple[str, bool]] = []

    def __init__(self, *args, **kwargs) -> None:
        self.environment = {"harness_version": "test"}
        self.chip = "cpu"
        self.backend = type("Backend", (), {"supports_timing": False})()

    def __enter__(self) -> RecordingHarness:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def evaluate(self, operator_id: str, source: str, **kwargs) -> dict:
        self.calls.append(kwargs)
        return {"operator": operator_id, "verdict": "correct", "duration_s": 0.0}

    def evaluate_public(self, operator_id: str, source: str, **kwargs) -> Any:
        self.calls.append(kwargs)
        self.phases.append(("public", kwargs["hidden_cases"] is not None))
        harness = self

        class Pending:
            def complete(self) -> dict:
                harness.phases.append(("complete", kwargs["hidden_cases"] is not None))
                return {"operator": operator_id, "verdict": "correct", "duration_s": 0.0}

        return Pending()


def job(job_id: str, **extra) -> dict:
    source = add_solution()
    return {
        "job_id": job_id,
        "operator": "aten::add",
        "tier": "full",
        "seed": 7,
        "secret_seed": True,
        "timeout_s": 60,
        "solution": {
            "file_name": "aten__add.py",
            "source": source,
            "sha256": hashlib.sha256(source.encode()).hexdigest(),
        },
        **extra,
    }


def test_bundle_jobs_hand_their_hidden_cases_to_the_harness(monkeypatch):
    monkeypatch.setattr(bundle, "Harness", RecordingHarness)
    monkeypatch.setattr(RecordingHarness, "calls", [])
    jobs = [job("with", hidden_cases=[HIDDEN]), job("without"), job("malformed", hidden_cases={"shape": [1]})]
    results = bundle.run_bundle(
        {"schema": JOBS_SCHEMA, "chip": "cpu", "jobs": jobs}, config=HarnessConfig(device="cpu")
    )
    assert [call["hidden_cases"] for call in RecordingHarness.calls] == [[HIDDEN], None]
    malformed = results["results"][2]["result"]
    assert malformed["verdict"] == "runtime_error" and "hidden_cases must be a list" in malformed["reason"]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_bundle_runs_every_public_phase_before_any_held_out_one(monkeypatch, workers):
    """A held-out phase followed by another job's public run would let that job's candidate time
    it (how long a candidate spun on a hidden shape): every job's public run comes first."""
    monkeypatch.setattr(bundle, "Harness", RecordingHarness)
    monkeypatch.setattr(RecordingHarness, "calls", [])
    monkeypatch.setattr(RecordingHarness, "phases", [])
    jobs = [job("a", hidden_cases=[HIDDEN]), job("b"), job("c", hidden_cases=[HIDDEN])]
    results = bundle.run_bundle(
        {"schema": JOBS_SCHEMA, "chip": "cpu", "jobs": jobs}, config=HarnessConfig(device="cpu"), workers=workers
    )
    assert [r["result"]["verdict"] for r in results["results"]] == ["correct"] * 3
    kinds = [kind for kind, _ in RecordingHarness.phases]
    assert kinds == ["public"] * 3 + ["complete"] * 3, RecordingHarness.phases


def test_the_runner_worker_hands_the_claimed_hidden_cases_to_the_harness(monkeypatch):
    monkeypatch.setattr(worker, "HARNESS", RecordingHarness())
    monkeypatch.setattr(RecordingHarness, "calls", [])
    worker._evaluate("with", job("with", hidden_cases=[HIDDEN]))
    worker._evaluate("without", job("without"))
    assert [call["hidden_cases"] for call in RecordingHarness.calls] == [[HIDDEN], None]
