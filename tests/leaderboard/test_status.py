"""A submission's status has one writer (leaderboard.services.sync_submission_status), driven by the
evaluator's signals: the evaluator announces what happened to its jobs and never touches the
submission itself."""

from __future__ import annotations

import pytest

from evaluator import services as evaluator_services
from evaluator.signals import evaluation_recorded, job_settled
from kgsite.errors import Forbidden
from leaderboard import selectors, services
from leaderboard.vocabulary import SubmissionStatus
from tests.factories import AttemptFactory, ChipFactory, SubmissionFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def heard():
    """What the evaluator announced: (signal name, job id)."""
    events: list[tuple[str, object]] = []

    def on_recorded(sender, evaluation, **kwargs):
        events.append(("evaluation_recorded", evaluation.job_id))

    def on_settled(sender, job, **kwargs):
        events.append(("job_settled", job.pk))

    evaluation_recorded.connect(on_recorded, dispatch_uid="test-heard-recorded")
    job_settled.connect(on_settled, dispatch_uid="test-heard-settled")
    yield events
    evaluation_recorded.disconnect(dispatch_uid="test-heard-recorded")
    job_settled.disconnect(dispatch_uid="test-heard-settled")


@pytest.fixture
def gpu():
    return ChipFactory(slug="h200")


def _submission(chip, attempts: int = 2):
    submission = SubmissionFactory(target_chip=chip)
    for _ in range(attempts):
        AttemptFactory(submission=submission)
    return submission


def _status(submission) -> str:
    submission.refresh_from_db()
    return submission.status


def test_a_submission_is_evaluating_once_enqueued_and_complete_once_every_job_settled(gpu, heard, settings):
    settings.KGB_MAX_JOB_DELIVERIES = 1
    submission = _submission(gpu, attempts=3)
    assert _status(submission) == SubmissionStatus.RECEIVED
    done, failed, cancelled = services.enqueue_submission(submission=submission)
    assert _status(submission) == SubmissionStatus.EVALUATING
    runner, _ = evaluator_services.register_runner(chip=gpu, name="gpu-1", user=None)

    evaluator_services.claim_job(runner=runner, job_id=done.pk)
    result = {"verdict": "correct", "operator": done.attempt.operator_id, "tier": done.tier}
    evaluator_services.record_result(runner=runner, job_id=done.pk, result=result)
    evaluator_services.record_result(runner=runner, job_id=done.pk, result=result)  # a repeated post
    assert _status(submission) == SubmissionStatus.EVALUATING
    evaluator_services.claim_job(runner=runner, job_id=failed.pk)
    evaluator_services.fail_job(runner=runner, job_id=failed.pk, error="lost the GPU")  # at the delivery limit
    assert _status(submission) == SubmissionStatus.EVALUATING
    evaluator_services.cancel_job(job=cancelled, user=None)
    assert _status(submission) == SubmissionStatus.COMPLETE
    # one announcement per change, none for the repeated post
    assert heard == [
        ("evaluation_recorded", done.pk),
        ("job_settled", done.pk),
        ("job_settled", failed.pk),
        ("job_settled", cancelled.pk),
    ]


def test_a_runner_failure_below_the_limit_settles_nothing(gpu, heard):
    (job,) = services.enqueue_submission(submission=_submission(gpu, attempts=1))
    runner, _ = evaluator_services.register_runner(chip=gpu, name="gpu-1", user=None)
    evaluator_services.claim_job(runner=runner, job_id=job.pk)
    evaluator_services.fail_job(runner=runner, job_id=job.pk, error="flaky")  # back to the queue
    assert heard == [] and _status(job.attempt.submission) == SubmissionStatus.EVALUATING


def test_complete_and_withdrawn_submissions_keep_their_status(gpu):
    complete = _submission(gpu)
    complete.status = SubmissionStatus.COMPLETE
    complete.save()
    services.enqueue_submission(submission=complete)  # a re-run on the same chip
    assert _status(complete) == SubmissionStatus.COMPLETE
    withdrawn = _submission(gpu)
    services.withdraw_submission(submission=withdrawn, user=UserFactory(is_staff=True))
    assert services.sync_submission_status(submission_id=withdrawn.pk) == SubmissionStatus.WITHDRAWN
    assert not selectors.submissions_visible_to(None).filter(pk=withdrawn.pk).exists()


def test_only_staff_withdraw(gpu):
    submission = _submission(gpu)
    with pytest.raises(Forbidden):
        services.withdraw_submission(submission=submission, user=submission.uploader)
    assert _status(submission) == SubmissionStatus.RECEIVED
