"""Issue 15 item 7, fairness: one zip queued 1,899 jobs in 3.8 s and the next user's job waited behind all
of them. A chip's queue is now shared round robin: each user has at most a window of jobs per chip in the
broker, and the next one goes out when one of theirs settles (evaluator/services/fair_share.py)."""

from __future__ import annotations

import pytest

from evaluator import services as evaluator_services
from evaluator.errors import JobConflict
from evaluator.models import EvaluationJob, JobState
from tests.factories import AttemptFactory, OperatorFactory, SubmissionFactory

pytestmark = pytest.mark.django_db

WINDOW = 2


@pytest.fixture
def fair(settings, world):
    settings.KGB_FAIR_SHARE_WINDOW = WINDOW
    runner, _ = evaluator_services.register_runner(chip=world.gpu, name="gpu-1", user=world.staff)
    return runner


def jobs_for(user, chip, count: int, callbacks) -> list[EvaluationJob]:
    submission = SubmissionFactory(uploader=user, target_chip=chip)
    operators = [OperatorFactory(name=f"fair{n}") for n in range(count // 10 + 1)]
    attempts = [
        AttemptFactory(submission=submission, operator=operators[n // 10], sample_index=n % 10) for n in range(count)
    ]
    with callbacks(execute=True):
        return evaluator_services.create_jobs(attempts=attempts, chip=chip, tier="full")


def broker(sent_tasks) -> list[str]:
    """The chip's queue as a FIFO broker holds it: the job ids in the order they were sent."""
    return [args[0] for _name, args, _options in sent_tasks]


def result_for(job: EvaluationJob) -> dict:
    return {"schema": "kgb.result/1", "verdict": "correct", "operator": job.attempt.operator_id, "tier": job.tier}


def drain(runner, sent_tasks, callbacks) -> list[str]:
    """A runner taking messages first in, first out until the queue is empty; the jobs it ran, in order."""
    ran, position = [], 0
    while position < len(sent_tasks):
        job_id = broker(sent_tasks)[position]
        position += 1
        with callbacks(execute=True):
            try:
                claimed = evaluator_services.claim_job(runner=runner, job_id=job_id)
            except JobConflict:
                continue  # a duplicate message: dropped
            evaluator_services.record_result(
                runner=runner, job_id=job_id, result=result_for(claimed.job), lease=claimed.job.lease_id
            )
        ran.append(job_id)
    return ran


def test_the_next_users_job_does_not_wait_behind_one_users_backlog(
    fair, world, sent_tasks, django_capture_on_commit_callbacks
):
    backlog = jobs_for(world.user, world.gpu, 30, django_capture_on_commit_callbacks)
    [other] = jobs_for(world.other, world.gpu, 1, django_capture_on_commit_callbacks)
    queue = broker(sent_tasks)
    assert queue.index(str(other.pk)) <= WINDOW, (
        f"bob's job is message {queue.index(str(other.pk)) + 1} of {len(queue)}"
    )
    ran = drain(fair, sent_tasks, django_capture_on_commit_callbacks)
    assert ran.index(str(other.pk)) <= WINDOW
    # and nothing is lost or run twice: every job ran exactly once, the backlog oldest first
    assert sorted(ran) == sorted(str(job.pk) for job in [*backlog, other])
    assert [job_id for job_id in ran if job_id != str(other.pk)] == [str(job.pk) for job in backlog]
    assert set(EvaluationJob.objects.values_list("state", flat=True)) == {JobState.DONE}


def test_users_take_turns_round_robin_on_a_chip(fair, world, sent_tasks, django_capture_on_commit_callbacks):
    alice = jobs_for(world.user, world.gpu, 12, django_capture_on_commit_callbacks)
    bob = jobs_for(world.other, world.gpu, 12, django_capture_on_commit_callbacks)
    ran = drain(fair, sent_tasks, django_capture_on_commit_callbacks)
    owner = {str(job.pk): "a" for job in alice} | {str(job.pk): "b" for job in bob}
    # alice's first window went before bob uploaded; from then on the two alternate window by window
    first_bob = [owner[job_id] for job_id in ran].index("b")
    assert first_bob <= WINDOW
    tail = [owner[job_id] for job_id in ran[first_bob : first_bob + 12]]
    assert abs(tail.count("a") - tail.count("b")) <= WINDOW, tail


def test_at_most_a_window_per_user_is_in_the_broker_and_the_rest_wait_unsent(
    fair, world, sent_tasks, django_capture_on_commit_callbacks
):
    jobs_for(world.user, world.gpu, 10, django_capture_on_commit_callbacks)
    assert len(sent_tasks) == WINDOW
    assert EvaluationJob.objects.filter(sent_at__isnull=True, state=JobState.QUEUED).count() == 10 - WINDOW
    # a repair run sends nothing that waits for its turn (only lost messages, and missed turns)
    with django_capture_on_commit_callbacks(execute=True):
        evaluator_services.resend_queued_jobs(older_than_s=3600)
    assert len(sent_tasks) == WINDOW
    # a cancelled job frees its place for the owner's next one
    first = EvaluationJob.objects.filter(sent_at__isnull=False).order_by("queued_at").first()
    with django_capture_on_commit_callbacks(execute=True):
        evaluator_services.cancel_job(job=first, user=world.user)
    assert len(sent_tasks) == WINDOW + 1


def test_deleting_a_submission_gives_its_places_to_the_owners_next_jobs(
    fair, world, sent_tasks, django_capture_on_commit_callbacks
):
    from leaderboard.services import delete_submission

    first = jobs_for(world.user, world.gpu, 3, django_capture_on_commit_callbacks)
    second = jobs_for(world.user, world.gpu, 3, django_capture_on_commit_callbacks)
    assert broker(sent_tasks) == [str(job.pk) for job in first[:WINDOW]]
    with django_capture_on_commit_callbacks(execute=True):
        delete_submission(submission=first[0].attempt.submission, user=world.user)
    assert broker(sent_tasks)[WINDOW:] == [str(job.pk) for job in second[:WINDOW]]


def test_one_user_alone_keeps_every_runner_busy(settings, world, sent_tasks, django_capture_on_commit_callbacks):
    settings.KGB_FAIR_SHARE_WINDOW = 1
    for n in range(3):
        evaluator_services.register_runner(chip=world.gpu, name=f"gpu-{n}", user=world.staff)
    jobs_for(world.user, world.gpu, 10, django_capture_on_commit_callbacks)
    assert len(sent_tasks) == 3  # the window is at least the chip's active runners


def test_a_bundle_for_an_air_gapped_chip_takes_users_in_turn(fair, world, django_capture_on_commit_callbacks):
    alice = jobs_for(world.user, world.gpu, 6, django_capture_on_commit_callbacks)
    bob = jobs_for(world.other, world.gpu, 2, django_capture_on_commit_callbacks)
    bundle = evaluator_services.export_jobs(chip=world.gpu, limit=4)
    assert [job["job_id"] for job in bundle["jobs"]] == [str(j.pk) for j in (alice[0], bob[0], alice[1], bob[1])]
