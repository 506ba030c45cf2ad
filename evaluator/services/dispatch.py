"""Writes of job dispatch: creating jobs (under the owner's queue cap), sending them to the chip's
queue after commit, claims, runner failures, cancellation and resending lost messages.

Job rows are locked with select_for_update, so concurrent deliveries of one job (a redelivered
Celery message racing a slow runner) resolve to one outcome on PostgreSQL; on SQLite the IMMEDIATE
transactions serialise writers. A job that settles (done, failed, cancelled) sends
evaluator.signals.job_settled in the same transaction.
"""

from __future__ import annotations

import hashlib
import secrets
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from evaluator import hidden_cases, selectors, signals
from evaluator.errors import HiddenCasesUnavailable, JobConflict, JobForbidden, JobNotFound, QueueLimitExceeded
from evaluator.harness.hidden import HIDDEN_TIER
from evaluator.models import Chip, EvaluationJob, JobEvent, Runner
from evaluator.vocabulary import TERMINAL_JOB_STATES, DeviceType, JobState, RunnerState, Tier
from kgsite.celery import app as celery_app
from kgsite.errors import ApplicationError, Invalid

TASK_NAME = "kgb.evaluate"
# harness wall time per tier; the Celery limits add a margin on top (see _send_job)
TIER_TIMEOUT_S = {Tier.SMOKE: 300, Tier.FULL: 600, Tier.EDGE: 600, Tier.PERF: 900}


def public_seed(operator_id: str, tier: str) -> int:
    """The public seed of an (operator, tier): the same for every submission, so public runs compare."""
    digest = hashlib.sha256(f"kgb-public:{operator_id}:{tier}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def default_tier(chip: Chip) -> str:
    """Smoke on the CPU interpreter (the full coverage would take hours there), full elsewhere."""
    return Tier.SMOKE if chip.device_type == DeviceType.CPU else Tier.FULL


def _send_job(job_id: str, queue: str, timeout_s: int) -> None:
    # by name: the site never imports the runner's task code. The soft limit lets the task report
    # a failure; the hard limit (+20% and two minutes) kills a task that ignores it.
    celery_app.send_task(
        TASK_NAME,
        args=[job_id],
        queue=queue,
        soft_time_limit=timeout_s + 60,
        time_limit=int(timeout_s * 1.2) + 120,
    )


def _enqueue_after_commit(job: EvaluationJob) -> None:
    job_id, queue, timeout_s = str(job.id), job.chip.queue_name, job.timeout_s
    # robust: a broker that is down must not turn a committed upload into an error page; the job
    # row exists and `manage.py resend_queued_jobs` sends it again once the broker is back
    transaction.on_commit(lambda: _send_job(job_id, queue, timeout_s), robust=True)


def _event(
    job: EvaluationJob,
    from_state: str,
    to_state: str,
    *,
    runner: Runner | None = None,
    user: AbstractBaseUser | None = None,
    detail: str = "",
) -> None:
    JobEvent.objects.create(job=job, from_state=from_state, to_state=to_state, runner=runner, user=user, detail=detail)


def settle_job(
    job: EvaluationJob,
    state: str,
    *,
    runner: Runner | None = None,
    user: AbstractBaseUser | None = None,
    detail: str = "",
    error: str = "",
) -> None:
    """Move a locked job to a terminal state, log who did it and announce it (job_settled): the one
    place a job settles. `error` is kept on failed jobs (why there is no verdict)."""
    previous = job.state
    job.state, job.finished_at = state, timezone.now()
    if error:
        job.error = error[:4000]
    job.save(update_fields=["state", "finished_at", "runner", "error"])
    _event(job, previous, state, runner=runner, user=user, detail=detail)
    signals.job_settled.send(sender=EvaluationJob, job=job)


def check_queue_cap(*, owner_ids: Iterable[int | None]) -> None:
    """The one check of KGB_MAX_QUEUED_JOBS_PER_USER: `owner_ids` are the owners of the jobs about to
    be created (one entry per job; None for jobs nobody owns, which are never capped)."""
    cap = settings.KGB_MAX_QUEUED_JOBS_PER_USER
    for owner_id, new in Counter(owner_id for owner_id in owner_ids if owner_id is not None).items():
        pending = selectors.pending_job_count(owner_id=owner_id)
        if pending + new > cap:
            raise QueueLimitExceeded(
                f"this would put {pending + new} evaluations in the queue of one user, over the limit of {cap} "
                "queued and running evaluations per user. Wait for the earlier ones to finish."
            )


@transaction.atomic
def create_jobs(
    *, attempts: Iterable[Any], chip: Chip, tier: str, held_out: bool = False, user: AbstractBaseUser | None = None
) -> list[EvaluationJob]:
    """Record one queued job per attempt, then (after commit) send each to the chip's queue.

    `attempts` are leaderboard.Attempt rows; the evaluator reads only their primary key and the
    uploader of their submission (the job's owner, whose queue cap applies). `user` is who asked,
    for the audit log."""
    attempts = list(attempts)
    if tier not in Tier.values:
        raise Invalid(f"unknown tier {tier!r}")
    if not chip.active:
        raise Invalid(f"chip {chip.slug} is not active")
    owners = [attempt.submission.uploader_id for attempt in attempts]
    check_queue_cap(owner_ids=owners)
    jobs = []
    for attempt, owner_id in zip(attempts, owners, strict=True):
        job = EvaluationJob.objects.create(
            attempt=attempt,
            owner_id=owner_id,
            chip=chip,
            tier=tier,
            timeout_s=TIER_TIMEOUT_S[tier],
            # from `secrets`, never `random`: the seed must not be predictable from other runs
            secret_seed=secrets.randbits(63) if held_out else None,
        )
        _event(
            job,
            "",
            JobState.QUEUED,
            user=user,
            detail=f"tier={tier} chip={chip.slug}" + (" held-out" if held_out else ""),
        )
        _enqueue_after_commit(job)
        jobs.append(job)
    return jobs


def locked_job(job_id, runner: Runner) -> EvaluationJob:
    """The job, locked for this transaction; refused unless it is for the runner's chip."""
    try:
        job = EvaluationJob.objects.select_for_update().select_related("attempt", "chip").get(pk=job_id)
    except (EvaluationJob.DoesNotExist, ValueError):
        raise JobNotFound(f"no job {job_id}") from None
    if job.chip_id != runner.chip_id:
        raise JobForbidden(f"job {job_id} is for another chip than this runner's ({runner.chip.slug})")
    return job


def check_job_access(*, runner: Runner, job_id) -> None:
    """404 or 403 before anything else is looked at (a runner learns nothing about other chips' jobs
    from validation messages)."""
    chip_id = EvaluationJob.objects.filter(pk=job_id).values_list("chip_id", flat=True).first()
    if chip_id is None:
        raise JobNotFound(f"no job {job_id}")
    if chip_id != runner.chip_id:
        raise JobForbidden(f"job {job_id} is for another chip than this runner's ({runner.chip.slug})")


def release_runner(runner: Runner, job: EvaluationJob) -> None:
    Runner.objects.filter(pk=runner.pk, current_job=job).update(current_job=None)


@dataclass
class ClaimedJob:
    job: EvaluationJob
    payload: dict = field(default_factory=dict)


def job_payload(job: EvaluationJob) -> dict:
    """What the runner's trusted harness needs. The seed is secret on held-out jobs: the harness
    keeps it in its own process and never hands it to the candidate. Held-out `full` jobs also carry
    the operator's hidden cases (evaluator.hidden_cases), whose inputs alone reach the candidate.
    `ceilings` are the chip's ceilings the site ranks with (evaluator.selectors.chip_ceilings)."""
    attempt = job.attempt
    payload = {
        "job_id": str(job.id),
        "operator": attempt.operator_id,
        "tier": job.tier,
        "seed": job.secret_seed if job.held_out else public_seed(attempt.operator_id, job.tier),
        "secret_seed": job.held_out,
        "timeout_s": job.timeout_s,
        "solution": {"file_name": attempt.file_name, "source": attempt.source, "sha256": attempt.source_sha256},
        "ceilings": selectors.chip_ceilings(chip=job.chip),
    }
    if job.held_out and job.tier == HIDDEN_TIER:
        try:
            cases = hidden_cases.cases_for(attempt.operator_id)
        except hidden_cases.HiddenCasesFileError as exc:
            raise HiddenCasesUnavailable(f"KGB_HIDDEN_CASES_FILE: {exc}") from None
        if cases:
            payload["hidden_cases"] = cases
    return payload


def claim_job(*, runner: Runner, job_id) -> ClaimedJob:
    """queued or running (a redelivery) -> running by this runner. Refused when the job is final."""
    outcome = _claim_job(runner, job_id)
    if isinstance(outcome, ApplicationError):
        # raised after the commit, so that giving up on a poison-pill job is kept
        raise outcome
    return outcome


@transaction.atomic
def _claim_job(runner: Runner, job_id) -> ClaimedJob | ApplicationError:
    job = locked_job(job_id, runner)
    if runner.state != RunnerState.ACTIVE:
        return JobConflict(f"runner {runner.name} is {runner.state}: it takes no new jobs", code="runner_not_active")
    if job.state == JobState.DONE:
        return JobConflict("already recorded", code="already_recorded")
    if job.state in (JobState.FAILED, JobState.CANCELLED):
        return JobConflict(f"job is {job.state}", code=f"job_{job.state}")
    if job.deliveries >= settings.KGB_MAX_JOB_DELIVERIES:
        # a job whose runs keep killing their worker is a poison pill: stop redelivering it
        error = f"given up after {job.deliveries} deliveries without a result (runner lost each time)"
        settle_job(job, JobState.FAILED, runner=runner, detail=error, error=error)
        return JobConflict(error, code="job_failed")
    previous = job.state
    job.state = JobState.RUNNING
    job.deliveries += 1
    job.runner = runner
    job.started_at = timezone.now()
    job.save(update_fields=["state", "deliveries", "runner", "started_at"])
    _event(job, previous, JobState.RUNNING, runner=runner, detail=f"delivery {job.deliveries}")
    Runner.objects.filter(pk=runner.pk).update(current_job=job)
    return ClaimedJob(job=job, payload=job_payload(job))


@transaction.atomic
def fail_job(*, runner: Runner, job_id, error: str) -> EvaluationJob:
    """A runner-level failure (no verdict). Back to the queue for another delivery, or failed for
    good after the delivery limit. A report on a job already final changes nothing."""
    job = locked_job(job_id, runner)
    if job.state in TERMINAL_JOB_STATES:
        return job
    if job.runner_id != runner.pk or job.state != JobState.RUNNING:
        raise JobConflict("this job is not running on this runner", code="not_claimed")
    error = error[:4000]
    if job.deliveries >= settings.KGB_MAX_JOB_DELIVERIES:
        settle_job(job, JobState.FAILED, runner=runner, detail=error, error=error)
    else:
        job.state, job.error = JobState.QUEUED, error
        job.save(update_fields=["state", "error"])
        _event(job, JobState.RUNNING, JobState.QUEUED, runner=runner, detail=f"runner failure, redelivering: {error}")
        _enqueue_after_commit(job)
    release_runner(runner, job)
    return job


@transaction.atomic
def cancel_job(*, job: EvaluationJob, user: AbstractBaseUser | None, detail: str = "") -> EvaluationJob:
    job = EvaluationJob.objects.select_for_update().get(pk=job.pk)
    if job.state in TERMINAL_JOB_STATES:
        return job
    settle_job(job, JobState.CANCELLED, user=user, detail=detail)
    return job


def stale_after_s(job: EvaluationJob) -> float:
    """How long a running job may go without a result before its message is presumed lost: past
    the hard time limit its worker would have enforced, plus a margin."""
    return job.timeout_s * 1.2 + 120 + 600


def resend_queued_jobs(*, older_than_s: int, chip: Chip | None = None) -> int:
    """Send again the jobs still queued after `older_than_s` (a message lost while the broker was
    down, or a broker that lost its data), and running jobs past their hard limit with no result
    (a runner machine that vanished). A job that still has a message gets a second one; the claim
    and the one-evaluation rule make the extra delivery harmless."""
    now = timezone.now()
    queued = EvaluationJob.objects.filter(state=JobState.QUEUED, queued_at__lt=now - timedelta(seconds=older_than_s))
    running = EvaluationJob.objects.filter(state=JobState.RUNNING, started_at__isnull=False)
    if chip is not None:
        queued, running = queued.filter(chip=chip), running.filter(chip=chip)
    stale = [
        job for job in running.select_related("chip") if (now - job.started_at).total_seconds() > stale_after_s(job)
    ]
    count = 0
    for job in [*queued.select_related("chip"), *stale]:
        _send_job(str(job.id), job.chip.queue_name, job.timeout_s)
        count += 1
    return count
