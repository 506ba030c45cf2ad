"""Claim leases (issue 15, item 4): one lease per delivery. A message for a job under a live lease is
a duplicate (neither a lost runner nor a second run); only what is really lost is sent again; a
runner that stops renewing its lease loses the job within a lease and a heartbeat interval."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from evaluator import services
from evaluator.models import Evaluation, EvaluationJob, JobEvent, JobState, Runner
from tests.evaluator.conftest import good_result, make_attempts


def api(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Runner {token}")
    return client


def claim(token: str, job):
    return api(token).post(f"/api/runner/jobs/{job.id}/claim", format="json")


def renew(token: str, job, lease):
    return api(token).post(f"/api/runner/jobs/{job.id}/lease", {"lease": lease}, format="json")


def post_result(token: str, job, lease=None, **overrides):
    body = {"result": good_result(job.attempt.operator_id, **overrides), "lease": lease}
    return api(token).post(f"/api/runner/jobs/{job.id}/result", body, format="json")


def events(job) -> list[tuple[str, str]]:
    return list(JobEvent.objects.filter(job=job).values_list("from_state", "to_state"))


def run_out(job, seconds: float = 1) -> None:
    """As if the lease holder had stopped renewing `seconds` ago."""
    EvaluationJob.objects.filter(pk=job.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=seconds))


@pytest.fixture
def job(submission, chip):
    return services.create_jobs(attempts=make_attempts(submission, 1), chip=chip, tier="full")[0]


@pytest.fixture
def second(chip, staff):
    """A second runner of the same chip."""
    return services.register_runner(chip=chip, name="gpu-box-2", user=staff)


def test_a_claim_answers_a_lease_of_one_heartbeat_interval_renewed_every_third(runner_and_token, job, settings):
    settings.KGB_RUNNER_HEARTBEAT_S = 30
    _, token = runner_and_token
    before = timezone.now()
    lease = claim(token, job).json()["lease"]
    assert lease["seconds"] == 30 and lease["renew_every_s"] == 10
    job.refresh_from_db()
    assert str(job.lease_id) == lease["id"]
    assert before + timedelta(seconds=29) <= job.lease_expires_at <= timezone.now() + timedelta(seconds=30)
    settings.KGB_JOB_LEASE_S = 12  # its own setting, read with the heartbeat interval as default
    assert services.lease_s() == 12


def test_duplicate_messages_for_a_leased_job_are_dropped_not_counted_nor_run(runner_and_token, job, sent_tasks):
    """The issue's case: resend_queued_jobs three times, an agent at --concurrency 4 takes all four
    messages. Before, that ran the job three times in parallel and failed it at the fourth claim."""
    _, token = runner_and_token
    for _ in range(3):
        services.resend_queued_jobs(older_than_s=0)
    assert [task["args"] for task in sent_tasks].count([str(job.id)]) == 3  # queued: every resend sends
    answers = [claim(token, job) for _ in range(4)]
    assert [answer.status_code for answer in answers] == [200, 409, 409, 409]
    assert {answer.json()["error"] for answer in answers[1:]} == {"leased"}
    job.refresh_from_db()
    assert (job.state, job.deliveries) == (JobState.RUNNING, 1)
    assert events(job) == [("", "queued"), ("queued", "running")]
    lease = answers[0].json()["lease"]["id"]
    assert post_result(token, job, lease).status_code == 201
    assert claim(token, job).json()["error"] == "already_recorded"
    job.refresh_from_db()
    assert (job.state, job.deliveries, job.lease_id, job.lease_expires_at) == (JobState.DONE, 1, None, None)


def test_a_runner_of_the_same_chip_cannot_take_or_fail_a_running_job(runner_and_token, second, job):
    runner, token = runner_and_token
    lease = claim(token, job).json()["lease"]["id"]
    other_runner, other_token = second
    taken = claim(other_token, job)
    assert taken.status_code == 409 and taken.json()["error"] == "leased"
    assert "gpu-box-1" in taken.json()["detail"]
    job.refresh_from_db()
    assert (job.state, job.runner, job.deliveries) == (JobState.RUNNING, runner, 1)
    assert renew(other_token, job, lease).json()["error"] == "lease_lost"
    assert post_result(other_token, job, lease).status_code == 409
    assert Runner.objects.get(pk=other_runner.pk).current_job is None
    assert post_result(token, job, lease).status_code == 201
    assert Evaluation.objects.get(job=job).runner == runner


def test_renewal_extends_the_lease_and_is_refused_for_a_lease_that_is_not_the_jobs(runner_and_token, job):
    _, token = runner_and_token
    lease = claim(token, job).json()["lease"]["id"]
    run_out(job, seconds=-0.5)  # half a second left
    answer = renew(token, job, lease)
    assert answer.status_code == 200 and answer.json()["lease"] == lease
    job.refresh_from_db()
    assert job.lease_expires_at > timezone.now() + timedelta(seconds=services.lease_s() - 2)
    assert renew(token, job, "00000000-0000-0000-0000-000000000000").json()["error"] == "lease_lost"
    assert renew(token, job, "not-a-uuid").status_code == 400
    # a runner that keeps renewing cannot hold a job past its hard time limit
    started = timezone.now() - timedelta(seconds=services.stale_after_s(job) + 1)
    EvaluationJob.objects.filter(pk=job.pk).update(started_at=started)
    assert renew(token, job, lease).json()["error"] == "lease_lost"


def test_a_lease_that_ran_out_is_requeued_on_a_heartbeat_and_its_old_holder_is_refused(
    runner_and_token, second, job, sent_tasks, django_capture_on_commit_callbacks
):
    runner, token = runner_and_token
    lease = claim(token, job).json()["lease"]["id"]
    other_runner, other_token = second
    sent_before = len(sent_tasks)
    with django_capture_on_commit_callbacks(execute=True):
        api(other_token).post("/api/runner/heartbeat", {"environment": {}}, format="json")
    assert len(sent_tasks) == sent_before  # a live lease: nothing to recover
    run_out(job)
    with django_capture_on_commit_callbacks(execute=True):
        assert api(other_token).post("/api/runner/heartbeat", {"environment": {}}, format="json").status_code == 200
    assert sent_tasks[-1]["args"] == [str(job.id)] and sent_tasks[-1]["options"]["queue"] == "chip.h200"
    job.refresh_from_db()
    assert (job.state, job.lease_expires_at, str(job.lease_id)) == (JobState.QUEUED, None, lease)
    assert Runner.objects.get(pk=runner.pk).current_job is None
    lost = JobEvent.objects.filter(job=job, from_state="running", to_state="queued").get()
    assert lost.runner == runner and "lease ran out" in lost.detail
    # the resent message goes to the other runner: a new delivery, a new lease
    new_lease = claim(other_token, job).json()["lease"]["id"]
    assert new_lease != lease
    # the lost runner comes back: its renewal, failure report and result are all refused
    assert renew(token, job, lease).json()["error"] == "lease_lost"
    fail = api(token).post(f"/api/runner/jobs/{job.id}/fail", {"error": "x", "lease": lease}, format="json")
    assert fail.status_code == 409
    refused = post_result(token, job, lease)
    assert refused.status_code == 409
    assert post_result(other_token, job, new_lease).status_code == 201
    job.refresh_from_db()
    assert (job.state, job.runner, job.deliveries) == (JobState.DONE, other_runner, 2)
    assert Evaluation.objects.filter(job=job).count() == 1
    assert [to for _, to in events(job)] == ["queued", "running", "queued", "running", "done"]


def test_an_unheard_holder_takes_its_job_back_while_no_other_delivery_took_it(
    runner_and_token, second, job, sent_tasks, django_capture_on_commit_callbacks
):
    """A stalled site (or a cut network) hears no renewal for a lease: the job is queued and sent
    again. Its holder, still running it, takes it back with its next renewal; the message sent
    meanwhile is then a duplicate. And a result under the last lease counts while the job waits."""
    runner, token = runner_and_token
    _, other_token = second
    lease = claim(token, job).json()["lease"]["id"]
    run_out(job)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.requeue_expired_leases() == 1
    answer = renew(token, job, lease)
    assert answer.status_code == 200
    job.refresh_from_db()
    assert (job.state, job.runner, job.deliveries, str(job.lease_id)) == (JobState.RUNNING, runner, 1, lease)
    assert Runner.objects.get(pk=runner.pk).current_job == job
    assert claim(other_token, job).json()["error"] == "leased"  # the message sent meanwhile
    assert JobEvent.objects.filter(job=job, from_state="queued", to_state="running", detail__contains="taken back")
    # queued again, then the result arrives before any other claim: recorded, the job is done
    run_out(job)
    with django_capture_on_commit_callbacks(execute=True):
        services.requeue_expired_leases()
    assert post_result(token, job, lease).status_code == 201
    job.refresh_from_db()
    assert (job.state, job.deliveries) == (JobState.DONE, 1)
    assert claim(other_token, job).json()["error"] == "already_recorded"
    # without a lease (an older agent) a queued job takes no result
    second_job = services.create_jobs(attempts=make_attempts(job.attempt.submission, 1), chip=job.chip, tier="full")[0]
    claim(token, second_job)
    run_out(second_job)
    with django_capture_on_commit_callbacks(execute=True):
        services.requeue_expired_leases()
    assert post_result(token, second_job).json()["error"] == "job_queued"


def test_a_claim_takes_over_a_job_whose_lease_ran_out_before_any_heartbeat(runner_and_token, second, job, sent_tasks):
    _, token = runner_and_token
    claim(token, job)
    run_out(job)
    sent_before = len(sent_tasks)
    other_runner, other_token = second
    assert claim(other_token, job).status_code == 200
    assert len(sent_tasks) == sent_before  # the message at hand is the delivery: none is sent
    job.refresh_from_db()
    assert (job.state, job.runner, job.deliveries) == (JobState.RUNNING, other_runner, 2)
    assert [to for _, to in events(job)] == ["queued", "running", "queued", "running"]


def test_a_job_that_keeps_losing_its_lease_fails_at_the_delivery_limit(
    runner_and_token, job, settings, sent_tasks, django_capture_on_commit_callbacks
):
    settings.KGB_MAX_JOB_DELIVERIES = 2
    _, token = runner_and_token
    for _ in range(2):
        claim(token, job)
        run_out(job)
        with django_capture_on_commit_callbacks(execute=True):
            services.requeue_expired_leases()
    job.refresh_from_db()
    assert job.state == JobState.FAILED and "given up after 2 deliveries" in job.error
    assert claim(token, job).json()["error"] == "job_failed"


def test_resend_sends_only_what_is_lost(
    runner_and_token, submission, chip, sent_tasks, django_capture_on_commit_callbacks
):
    _, token = runner_and_token
    waiting, leased, lost = services.create_jobs(attempts=make_attempts(submission, 3), chip=chip, tier="full")
    long_ago = timezone.now() - timedelta(hours=2)
    EvaluationJob.objects.filter(pk__in=[waiting.pk, leased.pk, lost.pk]).update(queued_at=long_ago, sent_at=long_ago)
    claim(token, leased)
    claim(token, lost)
    run_out(lost)
    sent_tasks.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert services.resend_queued_jobs(older_than_s=3600) == 2
    assert sorted(task["args"][0] for task in sent_tasks) == sorted([str(waiting.id), str(lost.id)])
    # run again at once: the queued jobs' messages were just sent, the leased job is still live
    sent_tasks.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert services.resend_queued_jobs(older_than_s=3600) == 0
        assert services.resend_queued_jobs(older_than_s=60) == 0
    assert sent_tasks == []
    assert EvaluationJob.objects.get(pk=leased.pk).state == JobState.RUNNING


def test_a_failure_report_under_the_current_lease_requeues_and_clears_it(runner_and_token, job, sent_tasks):
    _, token = runner_and_token
    lease = claim(token, job).json()["lease"]["id"]
    answer = api(token).post(f"/api/runner/jobs/{job.id}/fail", {"error": "device lost", "lease": lease}, format="json")
    assert answer.status_code == 200 and answer.json()["state"] == "queued"
    job.refresh_from_db()
    assert (job.state, job.lease_id, job.lease_expires_at) == (JobState.QUEUED, None, None)


def test_cancelling_a_running_job_ends_its_lease(runner_and_token, job, staff):
    _, token = runner_and_token
    lease = claim(token, job).json()["lease"]["id"]
    services.cancel_job(job=job, user=staff)
    assert renew(token, job, lease).json()["error"] == "lease_lost"
    assert post_result(token, job, lease).json()["error"] == "job_cancelled"
    job.refresh_from_db()
    assert job.lease_id is None and not Evaluation.objects.exists()


def test_a_live_lease_belongs_only_to_a_running_job(job):
    import uuid

    from django.db import IntegrityError, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        EvaluationJob.objects.filter(pk=job.pk).update(lease_expires_at=timezone.now())  # an expiry without an id
    with pytest.raises(IntegrityError), transaction.atomic():
        EvaluationJob.objects.filter(pk=job.pk).update(lease_id=uuid.uuid4(), lease_expires_at=timezone.now())
    # a queued job may keep its last delivery's lease id (its holder may take it back)
    EvaluationJob.objects.filter(pk=job.pk).update(lease_id=uuid.uuid4())


def test_the_resend_command_run_three_times_sends_nothing_for_a_leased_job(runner_and_token, job, sent_tasks, capsys):
    from django.core.management import call_command

    _, token = runner_and_token
    claim(token, job)
    sent_tasks.clear()
    for _ in range(3):
        call_command("resend_queued_jobs", "--older-than", "0")
    assert sent_tasks == [] and capsys.readouterr().out.count("re-sent 0 job(s)") == 3
    job.refresh_from_db()
    assert (job.state, job.deliveries) == (JobState.RUNNING, 1)
