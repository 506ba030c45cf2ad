import pytest
from rest_framework.test import APIClient

from evaluator import services
from evaluator.models import Evaluation, EvaluationJob, JobEvent, JobState, Runner, RunnerState
from leaderboard.models import SubmissionStatus
from tests.evaluator.conftest import good_result, make_attempts
from tests.factories import ChipFactory, SubmissionFactory


def api(token: str | None) -> APIClient:
    client = APIClient()
    if token is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Runner {token}")
    return client


@pytest.fixture
def job(submission, chip, sent_tasks):
    return services.create_jobs(attempts=make_attempts(submission, 1), chip=chip, tier="full")[0]


@pytest.fixture
def runner(runner_and_token):
    return runner_and_token[0]


@pytest.fixture
def token(runner_and_token):
    return runner_and_token[1]


def url(job, action: str) -> str:
    return f"/api/runner/jobs/{job.id}/{action}"


def claim(token, job):
    return api(token).post(url(job, "claim"), format="json")


def post_result(token, job, result):
    return api(token).post(url(job, "result"), {"result": result}, format="json")


# --- authentication -----------------------------------------------------------------------------


@pytest.mark.parametrize("header", [None, "Runner", "Runner kgbr_00000000_" + "x" * 43, "Bearer abc", "Runner a b"])
def test_config_refuses_missing_and_unknown_tokens(db, header):
    client = APIClient()
    if header:
        client.credentials(HTTP_AUTHORIZATION=header)
    response = client.get("/api/runner/config")
    assert response.status_code in (401, 403)


def test_config_gives_the_queue_and_broker_of_the_runners_chip(token, settings):
    settings.CELERY_BROKER_URL = "redis://broker.example:6379/0"
    response = api(token).get("/api/runner/config")
    assert response.status_code == 200
    body = response.json()
    assert body["queue"] == "chip.h200" and body["chip"] == "h200"
    assert body["broker_url"] == "redis://broker.example:6379/0"
    assert body["task_name"] == "kgb.evaluate"
    assert body["heartbeat_interval_s"] > 0
    assert body["timing_protocol"] == "write:events"  # runners time with what the site ranks
    settings.KGB_RANKED_TIMING_PROTOCOL = "read:kernel"
    assert api(token).get("/api/runner/config").json()["timing_protocol"] == "read:kernel"


def test_disabled_and_rotated_tokens_are_refused(runner, token, staff, job):
    services.disable_runner(runner=runner, user=staff)
    assert api(token).get("/api/runner/config").status_code == 401
    assert claim(token, job).status_code == 401
    services.activate_runner(runner=runner, user=staff)
    new_token = services.rotate_token(runner=runner, user=staff)
    assert api(token).get("/api/runner/config").status_code == 401
    assert api(new_token).get("/api/runner/config").status_code == 200


def test_session_users_cannot_use_the_runner_api(client, staff, job):
    client.force_login(staff)
    assert client.post(url(job, "claim")).status_code in (401, 403)


def test_heartbeat_records_the_environment(runner, token):
    environment = {"hostname": "box", "versions": {"torch": "2.13.0"}}
    response = api(token).post("/api/runner/heartbeat", {"environment": environment}, format="json")
    assert response.status_code == 200 and response.json()["state"] == "active"
    runner.refresh_from_db()
    assert runner.last_environment == environment and runner.is_online()


def test_heartbeat_refuses_a_non_object_environment(token):
    response = api(token).post("/api/runner/heartbeat", {"environment": [1, 2]}, format="json")
    assert response.status_code == 400


# --- claim ----------------------------------------------------------------------------------------


def test_claim_returns_the_payload_and_marks_the_job_running(runner, token, job):
    response = claim(token, job)
    assert response.status_code == 200
    payload = response.json()
    attempt = job.attempt
    assert payload["operator"] == attempt.operator_id
    assert payload["solution"] == {
        "file_name": attempt.file_name,
        "source": attempt.source,
        "sha256": attempt.source_sha256,
    }
    assert payload["secret_seed"] is False and isinstance(payload["seed"], int)
    job.refresh_from_db()
    assert (job.state, job.runner, job.deliveries) == (JobState.RUNNING, runner, 1)
    runner.refresh_from_db()
    assert runner.current_job == job
    assert JobEvent.objects.filter(job=job, from_state="queued", to_state="running", runner=runner).exists()


def test_a_held_out_job_gives_its_secret_seed_only_to_the_runner(runner, token, chip):
    held_out = SubmissionFactory(target_chip=chip, held_out=True)
    job = services.create_jobs(attempts=make_attempts(held_out, 1), chip=chip, tier="full", held_out=True)[0]
    payload = claim(token, job).json()
    assert payload["secret_seed"] is True and payload["seed"] == job.secret_seed


def test_a_runner_of_another_chip_cannot_claim(job, staff):
    other_chip = ChipFactory(slug="mi300x")
    _, other_token = services.register_runner(chip=other_chip, name="amd-box", user=staff)
    response = claim(other_token, job)
    assert response.status_code == 403
    job.refresh_from_db()
    assert job.state == JobState.QUEUED and job.deliveries == 0


def test_a_draining_runner_takes_no_new_job(runner, token, staff, job):
    services.drain_runner(runner=runner, user=staff)
    response = claim(token, job)
    assert response.status_code == 409 and response.json()["error"] == "runner_not_active"
    job.refresh_from_db()
    assert job.state == JobState.QUEUED


def expire_lease(job) -> None:
    """As if the lease's runner had stopped renewing it a while ago."""
    from datetime import timedelta

    from django.utils import timezone

    EvaluationJob.objects.filter(pk=job.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))


def test_a_redelivery_under_a_live_lease_is_a_duplicate_and_after_it_ran_out_a_new_delivery(token, job):
    assert claim(token, job).status_code == 200
    duplicate = claim(token, job)
    assert duplicate.status_code == 409 and duplicate.json()["error"] == "leased"
    job.refresh_from_db()
    assert job.deliveries == 1 and job.state == JobState.RUNNING
    expire_lease(job)
    assert claim(token, job).status_code == 200
    job.refresh_from_db()
    assert job.deliveries == 2 and job.state == JobState.RUNNING


def test_a_job_that_keeps_losing_its_runner_fails_after_the_delivery_limit(token, job, settings):
    settings.KGB_MAX_JOB_DELIVERIES = 2
    claim(token, job)
    expire_lease(job)
    claim(token, job)
    expire_lease(job)
    response = claim(token, job)
    assert response.status_code == 409 and response.json()["error"] == "job_failed"
    job.refresh_from_db()
    assert job.state == JobState.FAILED and "deliveries" in job.error


def test_claiming_a_done_job_answers_already_recorded(token, job):
    claim(token, job)
    post_result(token, job, good_result(job.attempt.operator_id))
    response = claim(token, job)
    assert response.status_code == 409 and response.json()["error"] == "already_recorded"


def test_unknown_job_is_404(token, db):
    response = api(token).post("/api/runner/jobs/00000000-0000-0000-0000-000000000000/claim")
    assert response.status_code == 404


# --- results --------------------------------------------------------------------------------------


def test_result_is_recorded_once_and_a_repeat_is_a_harmless_duplicate(runner, token, job):
    claim(token, job)
    first = post_result(token, job, good_result(job.attempt.operator_id))
    assert first.status_code == 201 and first.json()["duplicate"] is False
    second = post_result(token, job, good_result(job.attempt.operator_id, verdict="incorrect"))
    assert second.status_code == 200 and second.json()["duplicate"] is True
    evaluation = Evaluation.objects.get(job=job)
    assert evaluation.verdict == "correct"
    assert (evaluation.cases_total, evaluation.cases_passed) == (3, 2)
    # a correct verdict with a failed case (of an operator the catalog lacks) is recorded, rejected, unranked
    assert evaluation.rejected_reason and evaluation.speedup is None and evaluation.sol_pct is None
    assert evaluation.runner == runner and evaluation.harness_version == "0.1"
    job.refresh_from_db()
    assert job.state == JobState.DONE and job.finished_at is not None
    assert Runner.objects.get(pk=runner.pk).current_job is None
    assert JobEvent.objects.filter(job=job, to_state="done").count() == 1


def test_the_submission_completes_when_all_its_jobs_are_final(token, submission, chip):
    jobs = services.create_jobs(attempts=make_attempts(submission, 2), chip=chip, tier="full")
    submission.status = SubmissionStatus.EVALUATING
    submission.save()
    for index, job in enumerate(jobs):
        claim(token, job)
        post_result(token, job, good_result(job.attempt.operator_id))
        submission.refresh_from_db()
        expected = SubmissionStatus.COMPLETE if index == len(jobs) - 1 else SubmissionStatus.EVALUATING
        assert submission.status == expected


def test_timing_is_not_recorded_on_a_chip_where_it_means_nothing(cpu_chip, staff):
    _, cpu_token = services.register_runner(chip=cpu_chip, name="laptop", user=staff)
    job = services.create_jobs(
        attempts=make_attempts(SubmissionFactory(target_chip=cpu_chip), 1), chip=cpu_chip, tier="smoke"
    )[0]
    claim(cpu_token, job)
    assert post_result(cpu_token, job, good_result(job.attempt.operator_id, tier="smoke")).status_code == 201
    evaluation = Evaluation.objects.get(job=job)
    assert evaluation.speedup is None and evaluation.sol_pct is None


def test_timing_under_another_protocol_keeps_its_verdict_but_is_not_ranked(token, job):
    # kernel-clock speedups are not comparable with the ranked (do_bench) protocol's
    environment = {"harness_version": "0.1", "l2_flush": "read", "timing_clock": "kernel"}
    claim(token, job)
    assert post_result(token, job, good_result(job.attempt.operator_id, environment=environment)).status_code == 201
    evaluation = Evaluation.objects.get(job=job)
    assert evaluation.verdict == "correct" and evaluation.environment["timing_clock"] == "kernel"
    assert evaluation.speedup is None and evaluation.sol_pct is None


def test_the_ranked_timing_protocol_is_a_setting(token, job, settings):
    settings.KGB_RANKED_TIMING_PROTOCOL = "read:kernel"
    claim(token, job)
    from evaluator.services.result_checks import problems_with_result
    from tests.evaluator.result_docs import honest_result

    result = honest_result()
    result["environment"].update(l2_flush="read", timing_clock="kernel")
    from types import SimpleNamespace

    from tests.evaluator.result_docs import OPERATOR

    attempt = SimpleNamespace(operator_id=OPERATOR)
    operator_job = SimpleNamespace(attempt=attempt, tier="full", chip=job.chip, held_out=False)
    assert not any("protocol" in p for p in problems_with_result(job=operator_job, result=result))
    settings.KGB_RANKED_TIMING_PROTOCOL = "write:events"
    assert any("protocol" in p for p in problems_with_result(job=operator_job, result=result))


@pytest.mark.parametrize(
    "bad",
    [
        {"verdict": "great"},
        {"verdict": None},
        {"cases": "all"},
        {"cases": [1, 2]},
        {"timing": {"speedup": -1}},
        {"timing": {"speedup": "fast"}},
        {"timing": [1]},
        {"sol_pct": "high"},
        {"sol_pct": -3},
        {"duration_s": True},
        {"reason": 5},
        {"schema": "other/1"},
        {"environment": "box"},
        {"findings": {"a": 1}},
    ],
)
def test_malformed_results_get_a_clear_400_and_store_nothing(token, job, bad):
    claim(token, job)
    response = post_result(token, job, good_result(job.attempt.operator_id, **bad))
    assert response.status_code == 400
    assert response.json()["detail"]
    assert not Evaluation.objects.exists()
    job.refresh_from_db()
    assert job.state == JobState.RUNNING


def test_non_object_bodies_are_refused(token, job):
    claim(token, job)
    assert api(token).post(url(job, "result"), [1, 2], format="json").status_code == 400
    response = api(token).generic("POST", url(job, "result"), "{not json", content_type="application/json")
    assert response.status_code == 400
    assert not Evaluation.objects.exists()


def test_a_result_for_another_operator_is_refused(token, job):
    claim(token, job)
    response = post_result(token, job, good_result("aten::something_else"))
    assert response.status_code == 409 and response.json()["error"] == "result_mismatch"
    assert not Evaluation.objects.exists()


def test_a_result_for_a_job_not_claimed_by_this_runner_is_refused(token, job, chip, staff):
    _, second_token = services.register_runner(chip=chip, name="gpu-box-2", user=staff)
    response = post_result(token, job, good_result(job.attempt.operator_id))
    assert response.status_code == 409 and response.json()["error"] == "not_claimed"
    claim(second_token, job)
    assert post_result(token, job, good_result(job.attempt.operator_id)).status_code == 409
    assert not Evaluation.objects.exists()


def test_a_result_from_another_chips_runner_is_forbidden(token, job, staff):
    claim(token, job)
    _, other_token = services.register_runner(chip=ChipFactory(slug="a100"), name="ampere", user=staff)
    assert post_result(other_token, job, good_result(job.attempt.operator_id)).status_code == 403
    assert not Evaluation.objects.exists()


# --- runner-level failures ------------------------------------------------------------------------


def test_a_runner_failure_requeues_the_job_and_resends_it(token, job, sent_tasks, django_capture_on_commit_callbacks):
    claim(token, job)
    with django_capture_on_commit_callbacks(execute=True):
        response = api(token).post(url(job, "fail"), {"error": "CUDA driver error"}, format="json")
    assert response.status_code == 200 and response.json()["state"] == "queued"
    assert sent_tasks[-1]["args"] == [str(job.id)]
    job.refresh_from_db()
    assert job.state == JobState.QUEUED and "CUDA driver error" in job.error
    assert JobEvent.objects.filter(job=job, from_state="running", to_state="queued").exists()


def test_a_runner_failure_at_the_delivery_limit_fails_the_job(token, job, settings, submission):
    settings.KGB_MAX_JOB_DELIVERIES = 1
    claim(token, job)
    response = api(token).post(url(job, "fail"), {"error": "harness crashed"}, format="json")
    assert response.json()["state"] == "failed"
    job.refresh_from_db()
    assert job.state == JobState.FAILED and job.error == "harness crashed"
    submission.refresh_from_db()
    assert submission.status == SubmissionStatus.COMPLETE


def test_fail_needs_an_error_and_a_claim(token, job):
    assert api(token).post(url(job, "fail"), {"error": ""}, format="json").status_code == 400
    assert api(token).post(url(job, "fail"), {"error": "x"}, format="json").status_code == 409


def test_fail_after_a_result_changes_nothing(token, job):
    claim(token, job)
    post_result(token, job, good_result(job.attempt.operator_id))
    response = api(token).post(url(job, "fail"), {"error": "late"}, format="json")
    assert response.status_code == 200 and response.json()["state"] == "done"
    assert EvaluationJob.objects.get(pk=job.pk).state == JobState.DONE


def test_disabling_a_runner_keeps_its_recorded_results(runner, token, job, staff):
    claim(token, job)
    post_result(token, job, good_result(job.attempt.operator_id))
    services.disable_runner(runner=runner, user=staff)
    assert Runner.objects.get(pk=runner.pk).state == RunnerState.DISABLED
    assert Evaluation.objects.filter(job=job).exists()


def test_another_chips_runner_gets_403_before_any_validation(job, staff):
    _, other_token = services.register_runner(chip=ChipFactory(slug="mi300x"), name="amd-box", user=staff)
    assert api(other_token).post(url(job, "result"), {"result": {"verdict": 3}}, format="json").status_code == 403
    assert api(other_token).post(url(job, "fail"), {"error": ""}, format="json").status_code == 403
    missing = "/api/runner/jobs/00000000-0000-0000-0000-000000000000/result"
    assert api(other_token).post(missing, {"result": {}}, format="json").status_code == 404
