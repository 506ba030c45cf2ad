"""The job/result contract (evaluator.harness.contract): one definition of the documents, read back
unchanged, and one clear error naming the key of a malformed one."""

from __future__ import annotations

import hashlib

import pytest

from evaluator.harness.contract import ContractError, Job, JobBundle, Result, ResultsBundle
from evaluator.runner.fake import FakeHarness

SOURCE = "import triton\n"
JOB = {
    "job_id": "j1",
    "operator": "aten::add",
    "tier": "smoke",
    "seed": 3,
    "secret_seed": False,
    "timeout_s": 30,
    "solution": {"file_name": "aten__add.py", "source": SOURCE, "sha256": hashlib.sha256(SOURCE.encode()).hexdigest()},
    "ceilings": None,
}


def test_documents_are_read_back_unchanged_key_order_included():
    result = FakeHarness().evaluate("aten::add", SOURCE, tier="smoke")
    result["cases_sampled"] = {"smoke": {"kept": 2, "of": 3}}  # a key the contract does not name is kept
    assert list(Result.from_dict(result).to_dict().items()) == list(result.items())
    assert Job.from_dict(JOB).to_dict() == JOB
    bundle = {"schema": "kgb.jobs/1", "chip": "cpu", "timing_protocol": "write:events", "ceilings": None, "jobs": [JOB]}
    assert JobBundle.from_dict(bundle).to_dict() == bundle
    results = {
        "schema": "kgb.results/1",
        "chip": "cpu",
        "environment": {"chip": "cpu", "isolation": None},
        "results": [{"job_id": "j1", "result": result}, {"job_id": "j2", "result": {"error": "device lost"}}],
        "signature": None,
    }
    read = ResultsBundle.from_dict(results)
    assert read.results[1].error == "device lost" and read.to_dict() == results


@pytest.mark.parametrize(
    "change, key",
    [
        ({"verdict": "great"}, "result.verdict"),
        ({"schema": "kgb.result/2"}, "result.schema"),
        ({"cases": [{"params": {}, "passed": "yes"}]}, "result.cases[0].passed"),
        ({"cases": [{"params": {}, "passed": True, "timing": {"speedup": "fast"}}]}, "result.cases[0].timing.speedup"),
        ({"timing": {"candidate_median_us": -1.0}}, "result.timing.candidate_median_us"),
        ({"findings": [{"layer": "trace"}]}, "result.findings[0].detail"),
        ({"environment": {"isolation": {"complete": "yes"}}}, "result.environment.isolation.complete"),
        ({"seed_kind": "secret", "seed": 5}, "result.seed"),
    ],
)
def test_a_malformed_result_names_its_key(change, key):
    document = {**FakeHarness().evaluate("aten::add", SOURCE, tier="smoke"), **change}
    with pytest.raises(ContractError, match=key.replace("[", r"\[").replace("]", r"\]")):
        Result.from_dict(document)


@pytest.mark.parametrize(
    "change, key",
    [
        ({"solution": {**JOB["solution"], "sha256": "0" * 64}}, "job.solution.sha256"),
        ({"tier": "nope"}, "job.tier"),
        ({"seed": -1}, "job.seed"),
        ({"timeout_s": 0}, "job.timeout_s"),
        ({"job_id": ""}, "job.job_id"),
        ({"hidden_cases": {"a": 1}}, "job.hidden_cases"),
    ],
)
def test_a_malformed_job_names_its_key(change, key):
    with pytest.raises(ContractError, match=key):
        Job.from_dict({**JOB, **change})


def test_a_bundle_envelope_is_checked_apart_from_its_jobs():
    bundle, entries = JobBundle.envelope({"schema": "kgb.jobs/1", "chip": "cpu", "jobs": [{"job_id": 1}]})
    assert bundle.chip == "cpu" and entries == [{"job_id": 1}]
    for broken in ({"schema": "other", "jobs": []}, {"schema": "kgb.jobs/1"}, ["not", "a", "bundle"]):
        with pytest.raises(ContractError):
            JobBundle.envelope(broken)
