"""Writes of job dispatch: creating jobs (under the owner's queue cap), sending them to the chip's
queue after commit, claims and their leases, runner failures, cancellation and resending lost
messages.

A claim takes a lease on the job for this one delivery (lease_id, lease_expires_at): the worker
running it renews the lease every third of its length (renew_lease) and sends the lease with its
result or failure. While the lease is live, any other message for the job (a resend, a broker
redelivery, a second runner of the chip) is a duplicate: its claim answers `leased` and the worker
drops it, without counting a delivery. A lease that runs out means its runner is lost (killed
agent, dead machine, network cut): requeue_expired_leases puts the job back in the queue and sends
it again, on every runner heartbeat of the chip, on the job's next claim, and from
`manage.py resend_queued_jobs`. So a lost runner is noticed within a lease and a heartbeat interval.

Job rows are locked with select_for_update, so concurrent deliveries of one job resolve to one
outcome on PostgreSQL; on SQLite the IMMEDIATE transactions serialise writers. A job that settles
(done, failed, cancelled) sends evaluator.signals.job_settled in the same transaction.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from evaluator import hidden_cases, selectors, signals
from evaluator.errors import HiddenCasesUnavailable, JobConflict, JobForbidden, JobNotFound, QueueLimitExceeded
from evaluator.harness.contract import Job, Solution
from evaluator.harness.hidden import HIDDEN_TIER
from evaluator.models import Chip, EvaluationJob, JobEvent, Runner
from evaluator.services import fair_share
from evaluator.vocabulary import TERMINAL_JOB_STATES, DeviceType, JobState, RunnerState, Tier
from kgsite.celery import app as celery_app
from kgsite.errors import ApplicationError, Invalid

TASK_NAME = "kgb.evaluate"
# harness wall time per tier; the Celery limits add a margin on top (see send_job_message)
TIER_TIMEOUT_S = {Tier.SMOKE: 300, Tier.FULL: 600, Tier.EDGE: 600, Tier.PERF: 900}


def public_seed(operator_id: str, tier: str) -> int:
    """The public seed of an (operator, tier): the same for every submission, so public runs compare."""
    digest = hashlib.sha256(f"kgb-public:{operator_id}:{tier}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def default_tier(chip: Chip) -> str:
    """Smoke on the CPU interpreter (the full coverage would take hours there), full elsewhere."""
    return Tier.SMOKE if chip.device_type == DeviceType.CPU else Tier.FULL


def send_job_message(job_id: str, queue: str, timeout_s: int) -> None:
    # by name: the site never imports the runner's task code. The soft limit lets the task report
    # a failure; the hard limit (+20% and two minutes) kills a task that ignores it.
    celery_app.send_task(
        TASK_NAME,
        args=[job_id],
        queue=queue,
        soft_time_limit=timeout_s + 60,
        time_limit=int(timeout_s * 1.2) + 120,
    )


def lease_s() -> float:
    """How long a claim lease lives without renewal: KGB_JOB_LEASE_S, by default one runner
    heartbeat interval (KGB_RUNNER_HEARTBEAT_S). Workers renew every third of it, so two lost
    renewals in a row are survived."""
    return float(getattr(settings, "KGB_JOB_LEASE_S", None) or settings.KGB_RUNNER_HEARTBEAT_S)


def _enqueue_after_commit(job: EvaluationJob) -> None:
    job_id, queue, timeout_s = str(job.id), job.chip.queue_name, job.timeout_s
    # robust: a broker that is down must not turn a committed upload into an error page; the job
    # row exists and `manage.py resend_queued_jobs` sends it again once the broker is back
    transaction.on_commit(lambda: send_job_message(job_id, queue, timeout_s), robust=True)


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
    job.lease_id = job.lease_expires_at = None
    if error:
        job.error = error[:4000]
    job.save(update_fields=["state", "finished_at", "runner", "error", "lease_id", "lease_expires_at"])
    _event(job, previous, state, runner=runner, user=user, detail=detail)
    signals.job_settled.send(sender=EvaluationJob, job=job)
    send_waiting_jobs(chip_id=job.chip_id, owner_ids=[job.owner_id])  # the owner's next turn on the chip


def send_waiting_jobs(*, chip_id: int | None = None, owner_ids: Iterable[int | None] | None = None) -> int:
    """Send (after commit) the waiting jobs whose owner's fair share of their chip's queue has room
    (evaluator.services.fair_share); limited to one chip and some owners when given. Returns how many."""
    turns = fair_share.take_turns(chip_id=chip_id, owner_ids=owner_ids)
    for job in turns:
        _enqueue_after_commit(job)
    return len(turns)


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
    """Record one queued job per attempt, then (after commit) send to the chip's queue those that fit in
    their owner's fair share of it (evaluator.services.fair_share); the others are sent as the owner's
    earlier jobs settle.

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
        jobs.append(job)
    # the new jobs' turns (and those of any earlier job of these owners still waiting, which go first)
    turns = fair_share.take_turns(chip_id=chip.pk, owner_ids=set(owners))
    sent_at = {turn.pk: turn.sent_at for turn in turns}
    for job in jobs:
        job.sent_at = sent_at.get(job.pk)
    for turn in turns:
        _enqueue_after_commit(turn)
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


def lease_fields(job: EvaluationJob) -> dict:
    """The lease part of a claim's answer: its id (sent back with renewals, the result and failures),
    when it runs out, and how often the worker renews it."""
    return {
        "id": str(job.lease_id),
        "expires_at": job.lease_expires_at.isoformat(),
        "seconds": lease_s(),
        "renew_every_s": round(lease_s() / 3, 3),
    }


def lease_expired(job: EvaluationJob, now=None) -> bool:
    """Whether a running job's runner is lost: its lease ran out. A job claimed before leases
    existed (no lease) is lost once past its hard time limit and a margin, as it was then."""
    now = now or timezone.now()
    if job.lease_expires_at is not None:
        return job.lease_expires_at <= now
    return job.started_at is None or (now - job.started_at).total_seconds() > stale_after_s(job)


def _requeue_lost(job: EvaluationJob, now, *, send: bool, detail: str) -> bool:
    """A locked running job whose runner is lost: back to queued (and sent again when `send`), or
    failed for good at the delivery limit. True when it was queued again. The job keeps its last
    lease id (and runner) until another claim replaces them: a holder that was only unheard (a
    stalled site, a cut network) takes the job back with its next renewal or its result, as long
    as no other delivery took it."""
    lost = job.runner
    if lost is not None:
        release_runner(lost, job)
    if job.deliveries >= settings.KGB_MAX_JOB_DELIVERIES:
        error = f"given up after {job.deliveries} deliveries without a result (runner lost each time)"
        settle_job(job, JobState.FAILED, runner=lost, detail=f"{detail}; {error}", error=error)
        return False
    job.state, job.lease_expires_at = JobState.QUEUED, None
    fields = ["state", "lease_expires_at"]
    if send:
        job.sent_at = now
        fields.append("sent_at")
    job.save(update_fields=fields)
    _event(job, JobState.RUNNING, JobState.QUEUED, runner=lost, detail=detail)
    if send:
        _enqueue_after_commit(job)
    return True


def _lost_detail(job: EvaluationJob) -> str:
    holder = job.runner.name if job.runner is not None else "unknown"
    if job.lease_expires_at is None:
        return f"runner {holder} lost: no result past the hard time limit (claimed before leases)"
    return f"runner {holder} lost: its lease ran out at {job.lease_expires_at.isoformat()} without renewal"


def requeue_expired_leases(*, chip: Chip | None = None) -> int:
    """Queue again (and send) every running job whose lease ran out; at the delivery limit the job
    fails instead. Returns how many were sent again. Safe to run anywhere, any time, concurrently:
    each job is re-checked under its row lock."""
    now = timezone.now()
    candidates = EvaluationJob.objects.filter(state=JobState.RUNNING).filter(
        Q(lease_expires_at__lte=now) | Q(lease_expires_at__isnull=True)
    )
    if chip is not None:
        candidates = candidates.filter(chip=chip)
    requeued = 0
    for job_id in list(candidates.values_list("pk", flat=True)):
        with transaction.atomic():
            # of=self: PostgreSQL cannot lock the nullable side (runner) of the outer join
            job = EvaluationJob.objects.select_for_update(of=("self",)).select_related("chip", "runner").get(pk=job_id)
            if job.state != JobState.RUNNING or not lease_expired(job, now):
                continue
            requeued += _requeue_lost(job, now, send=True, detail=_lost_detail(job))
    return requeued


def job_payload(job: EvaluationJob) -> dict:
    """What the runner's trusted harness needs. The seed is secret on held-out jobs: the harness
    keeps it in its own process and never hands it to the candidate. Held-out `full` jobs also carry
    the operator's hidden cases (evaluator.hidden_cases), whose inputs alone reach the candidate.
    `ceilings` are the chip's ceilings the site ranks with (evaluator.selectors.chip_ceilings)."""
    attempt = job.attempt
    cases = None
    if job.held_out and job.tier == HIDDEN_TIER:
        try:
            cases = tuple(hidden_cases.cases_for(attempt.operator_id)) or None
        except hidden_cases.HiddenCasesFileError as exc:
            raise HiddenCasesUnavailable(f"KGB_HIDDEN_CASES_FILE: {exc}") from None
    return Job(
        job_id=str(job.id),
        operator=attempt.operator_id,
        tier=job.tier,
        seed=job.secret_seed if job.held_out else public_seed(attempt.operator_id, job.tier),
        secret_seed=job.held_out,
        timeout_s=job.timeout_s,
        solution=Solution(file_name=attempt.file_name, source=attempt.source, sha256=attempt.source_sha256),
        ceilings=selectors.chip_ceilings(chip=job.chip),
        hidden_cases=cases,
    ).to_dict()


def claim_job(*, runner: Runner, job_id) -> ClaimedJob:
    """queued -> running by this runner, under a new lease. A running job whose lease is live is
    refused (`leased`: the message is a duplicate, nothing changes); one whose lease ran out lost
    its runner and is taken over. Refused when the job is final."""
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
    now = timezone.now()
    if job.state == JobState.RUNNING:
        if not lease_expired(job, now):
            holder = job.runner.name if job.runner is not None else "another runner"
            until = job.lease_expires_at.isoformat() if job.lease_expires_at else "its hard time limit"
            return JobConflict(
                f"job is running under a live lease of runner {holder} (until {until}): this message is a duplicate",
                code="leased",
            )
        # its runner is lost: this message takes the job over (no new message is needed)
        if not _requeue_lost(job, now, send=False, detail=_lost_detail(job) + "; taken over by a claim"):
            return JobConflict(job.error, code="job_failed")
    if job.deliveries >= settings.KGB_MAX_JOB_DELIVERIES:
        # a job whose runs keep killing their worker is a poison pill: stop redelivering it
        error = f"given up after {job.deliveries} deliveries without a result (runner lost each time)"
        settle_job(job, JobState.FAILED, runner=runner, detail=error, error=error)
        return JobConflict(error, code="job_failed")
    previous = job.state
    job.state = JobState.RUNNING
    job.deliveries += 1
    job.runner = runner
    job.started_at = now
    job.lease_id, job.lease_expires_at = uuid.uuid4(), now + timedelta(seconds=lease_s())
    job.save(update_fields=["state", "deliveries", "runner", "started_at", "lease_id", "lease_expires_at"])
    _event(job, previous, JobState.RUNNING, runner=runner, detail=f"delivery {job.deliveries}, lease {job.lease_id}")
    Runner.objects.filter(pk=runner.pk).update(current_job=job)
    return ClaimedJob(job=job, payload={**job_payload(job), "lease": lease_fields(job)})


def check_lease(job: EvaluationJob, lease) -> None:
    """Refused unless `lease` (when the runner sends one) is the job's current lease."""
    if lease is not None and (job.lease_id is None or str(job.lease_id) != str(lease)):
        raise JobConflict(
            "this lease is no longer the job's: it ran out and the job went to another delivery",
            code="lease_lost",
        )


@transaction.atomic
def renew_lease(*, runner: Runner, job_id, lease) -> EvaluationJob:
    """Extend the lease of a job this runner is running. Refused (`lease_lost`) when the lease is
    not the job's last one (another delivery took the job, or it is final), or the job is past
    its hard time limit (a runner that keeps renewing cannot hold a job for ever). A lease that ran
    out is renewed as long as no other delivery took the job: if it was already queued again, its
    holder takes it back (the message sent meanwhile finds it leased and is dropped)."""
    job = locked_job(job_id, runner)
    if job.state not in (JobState.RUNNING, JobState.QUEUED) or job.runner_id != runner.pk or job.lease_id is None:
        raise JobConflict(f"job is {job.state} and holds no lease of this runner", code="lease_lost")
    check_lease(job, lease)
    now = timezone.now()
    if job.started_at is not None and (now - job.started_at).total_seconds() > stale_after_s(job):
        raise JobConflict("the job is past its hard time limit: the lease is not renewed", code="lease_lost")
    job.lease_expires_at = now + timedelta(seconds=lease_s())
    fields = ["lease_expires_at"]
    if job.state == JobState.QUEUED:
        job.state = JobState.RUNNING
        fields.append("state")
        _event(job, JobState.QUEUED, JobState.RUNNING, runner=runner, detail=f"lease {job.lease_id} taken back")
        Runner.objects.filter(pk=runner.pk).update(current_job=job)
    job.save(update_fields=fields)
    return job


@transaction.atomic
def fail_job(*, runner: Runner, job_id, error: str, lease=None) -> EvaluationJob:
    """A runner-level failure (no verdict). Back to the queue for another delivery, or failed for
    good after the delivery limit. A report on a job already final changes nothing; one under a
    lease that is no longer the job's is refused (`lease_lost`)."""
    job = locked_job(job_id, runner)
    if job.state in TERMINAL_JOB_STATES:
        return job
    if job.runner_id != runner.pk or job.state != JobState.RUNNING:
        raise JobConflict("this job is not running on this runner", code="not_claimed")
    check_lease(job, lease)
    error = error[:4000]
    if job.deliveries >= settings.KGB_MAX_JOB_DELIVERIES:
        settle_job(job, JobState.FAILED, runner=runner, detail=error, error=error)
    else:
        job.state, job.error, job.sent_at = JobState.QUEUED, error, timezone.now()
        job.lease_id = job.lease_expires_at = None
        job.save(update_fields=["state", "error", "sent_at", "lease_id", "lease_expires_at"])
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
    """The longest a delivery may hold a job: the hard time limit its worker enforces, plus a
    margin. Leases are not renewed past it."""
    return job.timeout_s * 1.2 + 120 + 600


def resend_queued_jobs(*, older_than_s: int, chip: Chip | None = None) -> int:
    """Send again only what is really lost: running jobs whose lease ran out (requeue_expired_leases)
    and queued jobs whose last message went out more than `older_than_s` ago (a message lost while
    the broker was down, or a broker that lost its data). A running job under a live lease is never
    sent again, nor is a job that waits for its owner's turn (no message yet: fair_share); a turn
    that was missed is taken now. Returns how many messages were sent. Any extra message is
    harmless: its claim finds the job leased or final and the worker drops it."""
    now = timezone.now()
    count = requeue_expired_leases(chip=chip)
    queued = EvaluationJob.objects.filter(
        state=JobState.QUEUED, sent_at__isnull=False, sent_at__lt=now - timedelta(seconds=older_than_s)
    ).select_related("chip")
    if chip is not None:
        queued = queued.filter(chip=chip)
    jobs = list(queued)
    EvaluationJob.objects.filter(pk__in=[job.pk for job in jobs]).update(sent_at=now)
    for job in jobs:
        send_job_message(str(job.id), job.chip.queue_name, job.timeout_s)
    return count + len(jobs) + send_waiting_jobs(chip_id=chip.pk if chip is not None else None)
