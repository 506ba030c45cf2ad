from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from evaluator import services
from evaluator.models import EvaluationJob, JobEvent, JobState
from kgsite.errors import ApplicationError
from leaderboard import services as leaderboard_services
from leaderboard.vocabulary import SubmissionStatus
from tests.evaluator.conftest import make_attempts
from tests.factories import SubmissionFactory


def test_jobs_are_recorded_then_sent_by_name_after_commit(
    submission, chip, sent_tasks, django_capture_on_commit_callbacks
):
    attempts = make_attempts(submission, 3)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        jobs = services.create_jobs(attempts=attempts, chip=chip, tier="full")
    assert sent_tasks == []  # nothing before commit
    assert len(callbacks) == 3
    for callback in callbacks:
        callback()
    assert [task["args"] for task in sent_tasks] == [[str(job.id)] for job in jobs]
    for task in sent_tasks:
        assert task["name"] == "kgb.evaluate"
        assert task["options"]["queue"] == "chip.h200"
        assert task["job_existed"]
        assert task["options"]["soft_time_limit"] < task["options"]["time_limit"]
    assert all(job.state == JobState.QUEUED for job in EvaluationJob.objects.all())
    assert JobEvent.objects.filter(to_state=JobState.QUEUED).count() == 3


def test_nothing_is_sent_when_the_transaction_rolls_back(
    submission, chip, sent_tasks, django_capture_on_commit_callbacks
):
    attempts = make_attempts(submission, 2)
    with django_capture_on_commit_callbacks(execute=True):
        with pytest.raises(RuntimeError), transaction.atomic():
            services.create_jobs(attempts=attempts, chip=chip, tier="full")
            raise RuntimeError("the upload failed later")
    assert sent_tasks == []
    assert not EvaluationJob.objects.exists()


def test_enqueue_submission_uses_smoke_on_cpu_and_full_elsewhere(cpu_chip, chip, django_capture_on_commit_callbacks):
    on_cpu = SubmissionFactory(target_chip=cpu_chip)
    on_gpu = SubmissionFactory(target_chip=chip)
    make_attempts(on_cpu, 2)
    make_attempts(on_gpu, 1)
    with django_capture_on_commit_callbacks(execute=True):
        cpu_jobs = leaderboard_services.enqueue_submission(submission=on_cpu)
        gpu_jobs = leaderboard_services.enqueue_submission(submission=on_gpu)
    assert {job.tier for job in cpu_jobs} == {"smoke"}
    assert {job.tier for job in gpu_jobs} == {"full"}
    on_cpu.refresh_from_db()
    assert on_cpu.status == SubmissionStatus.EVALUATING


def test_held_out_submissions_get_a_distinct_secret_seed_per_job(chip, django_capture_on_commit_callbacks):
    held_out = SubmissionFactory(target_chip=chip, held_out=True)
    make_attempts(held_out, 4)
    with django_capture_on_commit_callbacks(execute=True):
        jobs = leaderboard_services.enqueue_submission(submission=held_out)
    seeds = [job.secret_seed for job in jobs]
    assert None not in seeds and len(set(seeds)) == 4
    assert all(job.held_out for job in jobs)


def test_public_jobs_carry_the_same_public_seed_for_every_submission(chip):
    first, second = SubmissionFactory(target_chip=chip), SubmissionFactory(target_chip=chip)
    a = make_attempts(first, 1)[0]
    b = make_attempts(second, 1)[0]
    b.operator = a.operator
    b.save()
    job_a, job_b = services.create_jobs(attempts=[a, b], chip=chip, tier="full")
    assert job_a.secret_seed is None
    assert services.job_payload(job_a)["seed"] == services.job_payload(job_b)["seed"]


def test_per_user_queue_cap_is_enforced_with_a_clear_error(submission, chip, settings, sent_tasks):
    settings.KGB_MAX_QUEUED_JOBS_PER_USER = 3
    services.create_jobs(attempts=make_attempts(submission, 2), chip=chip, tier="full")
    more = make_attempts(submission, 2)
    with pytest.raises(services.QueueLimitExceeded, match="over the limit of 3"):
        services.create_jobs(attempts=more, chip=chip, tier="full")
    assert EvaluationJob.objects.count() == 2


def test_inactive_chip_and_unknown_tier_are_refused(submission, chip):
    attempts = make_attempts(submission, 1)
    with pytest.raises(ApplicationError, match="unknown tier"):
        services.create_jobs(attempts=attempts, chip=chip, tier="turbo")
    chip.active = False
    chip.save()
    with pytest.raises(ApplicationError, match="not active"):
        services.create_jobs(attempts=attempts, chip=chip, tier="full")


def test_a_broker_outage_at_commit_keeps_the_job_and_resend_recovers_it(
    submission, chip, monkeypatch, sent_tasks, django_capture_on_commit_callbacks
):
    def broker_down(*args, **kwargs):
        raise ConnectionError("broker unreachable")

    monkeypatch.setattr(services.celery_app, "send_task", broker_down)
    with django_capture_on_commit_callbacks(execute=True):
        jobs = services.create_jobs(attempts=make_attempts(submission, 1), chip=chip, tier="full")
    assert EvaluationJob.objects.get(pk=jobs[0].pk).state == JobState.QUEUED
    monkeypatch.setattr(services.celery_app, "send_task", sent_tasks)
    assert services.resend_queued_jobs(older_than_s=3600) == 0  # too recent
    assert services.resend_queued_jobs(older_than_s=0) == 1
    assert sent_tasks[-1]["args"] == [str(jobs[0].id)] and sent_tasks[-1]["options"]["queue"] == "chip.h200"


def test_a_running_job_claimed_before_leases_is_resent_past_its_hard_limit_but_a_fresh_one_is_not(
    submission, chip, sent_tasks, django_capture_on_commit_callbacks
):
    stale, fresh = services.create_jobs(attempts=make_attempts(submission, 2), chip=chip, tier="full")
    now = timezone.now()
    EvaluationJob.objects.filter(pk=stale.pk).update(state=JobState.RUNNING, started_at=now - timedelta(hours=2))
    EvaluationJob.objects.filter(pk=fresh.pk).update(state=JobState.RUNNING, started_at=now - timedelta(minutes=5))
    with django_capture_on_commit_callbacks(execute=True):
        assert services.resend_queued_jobs(older_than_s=0) == 1
    assert sent_tasks[-1]["args"] == [str(stale.id)]
    assert EvaluationJob.objects.get(pk=stale.pk).state == JobState.QUEUED
