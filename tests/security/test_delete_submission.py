"""Deleting a submission is all or nothing: its attempts (the solution sources), jobs, job events,
evaluations and leaderboard rows go with it, and a failure part-way leaves every one of them as
it was."""

from __future__ import annotations

import pytest
from django.db.models.signals import post_delete

from evaluator.models import Evaluation, EvaluationJob, JobEvent, JobState
from kgsite.errors import Forbidden
from leaderboard import services
from leaderboard.models import Attempt, LeaderboardEntry, Submission
from tests.factories import (
    AttemptFactory,
    EvaluationFactory,
    EvaluationJobFactory,
    RunnerFactory,
    SubmissionFactory,
)


@pytest.fixture
def evaluated(world):
    """A submission with a queued, a running and a finished job (events for each), an evaluation,
    leaderboard rows and a runner busy with the running job; and a bystander submission."""
    submission = SubmissionFactory(uploader=world.user, target_chip=world.gpu)
    add, mul, rms = (world.operators[name] for name in ("add", "mul", "rms_norm"))
    queued = EvaluationJobFactory(attempt=AttemptFactory(submission=submission, operator=add), state=JobState.QUEUED)
    runner = RunnerFactory(chip=world.gpu)
    running = EvaluationJobFactory(
        attempt=AttemptFactory(submission=submission, operator=mul), state=JobState.RUNNING, runner=runner
    )
    runner.current_job = running
    runner.save(update_fields=["current_job"])
    evaluation = EvaluationFactory(job__attempt=AttemptFactory(submission=submission, operator=rms))
    for job in (queued, running, evaluation.job):
        JobEvent.objects.create(job=job, from_state="", to_state=job.state)
    services.refresh_leaderboard_entries(submission_id=submission.pk)
    bystander = EvaluationFactory(job__attempt=AttemptFactory(operator=add)).attempt.submission
    services.refresh_leaderboard_entries(submission_id=bystander.pk)
    return submission, runner, bystander


def snapshot(submission: Submission) -> dict:
    jobs = EvaluationJob.objects.filter(attempt__submission_id=submission.pk)
    return {
        "submission": Submission.objects.filter(pk=submission.pk).exists(),
        "attempts": sorted(Attempt.objects.filter(submission_id=submission.pk).values_list("pk", "source")),
        "jobs": sorted(jobs.values_list("pk", "state")),
        "events": JobEvent.objects.filter(job__in=jobs).count(),
        "evaluations": Evaluation.objects.filter(attempt__submission_id=submission.pk).count(),
        "entries": LeaderboardEntry.objects.filter(submission_id=submission.pk).count(),
    }


def test_delete_removes_everything_of_the_submission_and_nothing_else(world, evaluated):
    submission, runner, bystander = evaluated
    before = snapshot(bystander)
    services.delete_submission(submission=submission, user=world.user)
    assert snapshot(submission) == {
        "submission": False,
        "attempts": [],
        "jobs": [],
        "events": 0,
        "evaluations": 0,
        "entries": 0,
    }
    runner.refresh_from_db()
    assert runner.current_job is None
    assert snapshot(bystander) == before


def test_a_failure_part_way_through_the_delete_keeps_everything(world, evaluated):
    submission, runner, _ = evaluated
    before = snapshot(submission)
    assert before["jobs"] and before["events"] and before["evaluations"] and before["entries"]

    def fail_after_the_first_attempt_row_went(**kwargs) -> None:
        raise RuntimeError("storage failed mid-delete")

    # attempts are deleted after their evaluations, jobs and events: by then those rows are gone
    post_delete.connect(fail_after_the_first_attempt_row_went, sender=Attempt, dispatch_uid="test-mid-delete")
    try:
        with pytest.raises(RuntimeError, match="mid-delete"):
            services.delete_submission(submission=submission, user=world.user)
    finally:
        post_delete.disconnect(sender=Attempt, dispatch_uid="test-mid-delete")
    assert snapshot(submission) == before  # the queued job is still queued, not cancelled
    runner.refresh_from_db()
    assert runner.current_job is not None


def test_only_the_owner_or_staff_may_delete(world, evaluated):
    submission, _, _ = evaluated
    before = snapshot(submission)
    with pytest.raises(Forbidden):
        services.delete_submission(submission=submission, user=world.other)
    assert snapshot(submission) == before
    services.delete_submission(submission=submission, user=world.staff)
    assert not snapshot(submission)["submission"]
