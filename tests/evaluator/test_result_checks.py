"""The site checks every result against its job before anything is ranked (issue 15, item 1)."""

from __future__ import annotations

import copy

import pytest
from django.urls import reverse

from evaluator import services
from evaluator.errors import MalformedResult
from evaluator.models import Evaluation
from evaluator.runner.fake import FakeHarness
from evaluator.services.result_checks import problems_with_result
from leaderboard.models import LeaderboardEntry
from tests.evaluator.result_docs import OPERATOR, honest_result, honest_timing
from tests.factories import AttemptFactory, OperatorFactory, SubmissionFactory


@pytest.fixture
def operator(db):
    return OperatorFactory(id=OPERATOR, source="aten", name="_index_put_impl_")


def make_job(chip, operator, tier="full"):
    submission = SubmissionFactory(target_chip=chip)
    attempt = AttemptFactory(submission=submission, operator=operator)
    return services.create_jobs(attempts=[attempt], chip=chip, tier=tier)[0]


@pytest.fixture
def job(chip, operator, sent_tasks):
    return make_job(chip, operator)


def post(client, token, job, result):
    auth = {"HTTP_AUTHORIZATION": f"Runner {token}"}
    assert client.post(f"/api/runner/jobs/{job.id}/claim", **auth).status_code == 200
    return client.post(f"/api/runner/jobs/{job.id}/result", {"result": result}, content_type="application/json", **auth)


def test_the_issue_attack_is_recorded_as_rejected_and_never_ranked(
    client, runner_and_token, job, django_capture_on_commit_callbacks
):
    _, token = runner_and_token
    attack = {"verdict": "correct", "cases": [{"passed": True}], "timing": {"speedup": 1e300}, "sol_pct": 1e9}
    with django_capture_on_commit_callbacks(execute=True):
        response = post(client, token, job, attack)
    assert response.status_code == 201
    evaluation = Evaluation.objects.get(job=job)
    assert evaluation.verdict == "correct" and evaluation.rejected_reason
    assert evaluation.speedup is None and evaluation.sol_pct is None
    entries = LeaderboardEntry.objects.filter(submission=job.attempt.submission)
    assert entries.exists() and all(e.operators_correct == 0 and e.operators_evaluated == 0 for e in entries)
    job.attempt.submission.uploader.is_staff = True
    job.attempt.submission.uploader.save()
    client.force_login(job.attempt.submission.uploader)
    page = client.get(reverse("attempt_detail", args=[job.attempt_id]))
    assert "rejected: " in page.content.decode()


def test_honest_results_are_ranked(client, runner_and_token, job, django_capture_on_commit_callbacks):
    _, token = runner_and_token
    with django_capture_on_commit_callbacks(execute=True):
        assert post(client, token, job, honest_result()).status_code == 201
    evaluation = Evaluation.objects.get(job=job)
    assert evaluation.rejected_reason == "" and evaluation.speedup == 1.7 and evaluation.sol_pct == 41.0
    entry = LeaderboardEntry.objects.get(submission=job.attempt.submission, chip=job.chip, operator_set="all")
    assert (entry.operators_evaluated, entry.operators_correct) == (1, 1)


def test_the_fake_harness_result_is_ranked(job):
    with FakeHarness() as harness:
        result = harness.evaluate(OPERATOR, "", tier="smoke")
    smoke = make_job(job.chip, job.attempt.operator, tier="smoke")
    assert problems_with_result(job=smoke, result=result) == []


def test_isolation_incomplete_is_not_ranked(job):
    result = honest_result()
    result["environment"]["isolation"]["complete"] = False
    assert any("isolation" in p for p in problems_with_result(job=job, result=result))
    del result["environment"]["isolation"]
    assert any("isolation" in p for p in problems_with_result(job=job, result=result))


def _without_perf(result):
    result["cases"] = [c for c in result["cases"] if c.get("tier") != "perf"]
    return result


@pytest.mark.parametrize(
    "mutate, expected",
    [
        (lambda r: r["cases"].pop(0), "case entries"),
        (lambda r: r["cases"].append(copy.deepcopy(r["cases"][0])), "case entries"),
        (lambda r: r["cases"][0].pop("params"), "params"),
        (lambda r: r["cases"].append({"params": {"hidden": True}, "hidden": True, "passed": True}), "hidden"),
        (lambda r: r["cases"].pop(), "perf-tier"),
        (lambda r: r["cases"][1].update(passed=False), "failed case"),
        (lambda r: r.update(findings=[{"layer": "trace", "detail": "x"}]), "finding"),
        (lambda r: r.update(verdict="cheat_detected"), "without a finding"),
        (lambda r: r["timing"].update(speedup=5000.0), "speedup"),
        (lambda r: r["timing"].update(speedup=0), "speedup"),
        (lambda r: r.update(sol_pct=118.0), "sol_pct"),
        (lambda r: r["cases"][-1]["timing"].update(candidate_median_us=0.0), "candidate_median_us"),
        (lambda r: r["environment"].update(l2_flush="read", timing_clock="kernel"), "protocol"),
        (lambda r: _without_perf(r), "timing"),
        (lambda r: r.update(cases_skipped=3), "cases_skipped"),
    ],
)
def test_each_rule(job, mutate, expected):
    result = honest_result()
    assert problems_with_result(job=job, result=result) == []
    mutate(result)
    problems = problems_with_result(job=job, result=result)
    assert problems and any(expected in p for p in problems), problems


def test_incorrect_needs_a_failed_case_and_fail_fast_adds_up(job):
    result = _without_perf(honest_result(timing=None, sol_pct=None, verdict="incorrect"))
    assert any("failed case" in p for p in problems_with_result(job=job, result=result))
    result["cases"][0]["passed"] = False
    assert problems_with_result(job=job, result=result) == []
    result["cases"] = result["cases"][:3]
    assert problems_with_result(job=job, result=result)
    result["cases_skipped"] = len(honest_result(timed=False)["cases"]) - 3
    assert problems_with_result(job=job, result=result) == []


def test_timing_only_where_the_chip_times(cpu_chip, operator, sent_tasks):
    job = make_job(cpu_chip, operator, tier="smoke")
    assert problems_with_result(job=job, result=honest_result(tier="smoke", timed=False)) == []
    timed = honest_result(tier="smoke", timed=False, timing={"speedup": 2.0}, sol_pct=10.0)
    assert any("timing" in p for p in problems_with_result(job=job, result=timed))


def test_untimed_tier_carries_no_timing(chip, operator, sent_tasks):
    job = make_job(chip, operator, tier="smoke")
    result = honest_result(tier="smoke", timed=False, timing={"speedup": 2.0})
    assert any("untimed" in p for p in problems_with_result(job=job, result=result))


def test_unknown_operator_is_rejected(chip, sent_tasks, submission):
    job = services.create_jobs(attempts=[AttemptFactory(submission=submission)], chip=chip, tier="full")[0]
    assert any("catalog" in p for p in problems_with_result(job=job, result=honest_result()))


@pytest.mark.parametrize(
    "mutate",
    [lambda r: r["cases"][0].update(passed="yes"), lambda r: r.update(verdict="great")],
    ids=["passed", "verdict"],
)
def test_a_document_off_the_contract_is_malformed_not_a_problem(job, mutate):
    result = honest_result()
    mutate(result)
    with pytest.raises(MalformedResult):
        problems_with_result(job=job, result=result)


def _perf_entries(result):
    return [case for case in result["cases"] if case.get("tier") == "perf"]


def test_case_params_must_be_the_catalogs_cases_of_the_tier(job):
    result = honest_result()
    result["cases"][0]["params"] = dict(result["cases"][0]["params"], invented=1)
    result["cases"][1]["params"] = dict(result["cases"][1]["params"], dtype="float64")
    del result["cases"][2]["params"]["dtype"]
    problems = problems_with_result(job=job, result=result)
    assert any("case 0" in p and "invented" in p for p in problems), problems
    assert any("case 1" in p and "values differ" in p for p in problems), problems
    assert any("case 2" in p and "dtype missing" in p for p in problems), problems
    # the same cases in another order: each entry is checked against the case at its position
    result = honest_result()
    perf = _perf_entries(result)
    perf[0]["params"], perf[1]["params"] = perf[1]["params"], perf[0]["params"]
    assert any("perf case 0" in p for p in problems_with_result(job=job, result=result))


def test_a_hidden_entry_that_describes_its_case_is_rejected(job):
    result = honest_result()
    result["cases"].append({"params": {"hidden": True, "shape": [4096]}, "hidden": True, "passed": True})
    assert any("describes its case" in p for p in problems_with_result(job=job, result=result))


def test_a_median_below_the_physics_floor_is_impossible(job):
    result = honest_result()
    slow_case = _perf_entries(result)[1]["timing"]  # 805 MB moved: a 240 µs floor at 3.35 TB/s
    # consistent with itself (speedup = baseline / median, %SOL under the harness's bound), and still impossible
    slow_case.update(candidate_median_us=20.0, baseline_median_us=34.0, sol_pct=100.0)
    problems = problems_with_result(job=job, result=result)
    assert any("case timing 1" in p and "physical floor" in p for p in problems), problems


def test_speedup_and_sol_are_bounded_by_the_medians_and_the_floor(job):
    result = honest_result()
    _perf_entries(result)[0]["timing"]["speedup"] = 40.0  # the medians give 1.7
    assert any("more than its medians give" in p for p in problems_with_result(job=job, result=result))
    result = honest_result()
    _perf_entries(result)[0]["timing"]["sol_pct"] = 90.0  # its median is 41% of the floor
    assert any("above what its median allows" in p for p in problems_with_result(job=job, result=result))


def test_the_summary_is_no_more_than_its_cases_give(job):
    result = honest_result()
    result["timing"]["speedup"] = 900.0
    assert any("geometric mean of its cases' speedups" in p for p in problems_with_result(job=job, result=result))
    result = honest_result(sol_pct=100.0)
    assert any("geometric mean of its cases' %SOL" in p for p in problems_with_result(job=job, result=result))


def test_the_floor_uses_the_chips_ceilings(job):
    # the same result on a chip of a hundredth of the ceilings: every median far below its floor there
    job.chip.peak_bandwidth_gbs = 33.5
    job.chip.peak_tflops = {"bfloat16": 9.89, "float32": 0.67}
    problems = problems_with_result(job=job, result=honest_result())
    assert sum("physical floor" in p for p in problems) == len(honest_timing()), problems
