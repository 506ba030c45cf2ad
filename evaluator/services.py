"""Writes of the evaluator: runner fleet management, job dispatch and result recording.

Every function here is the one place its state change happens; views, the runner API, admin
actions and management commands all call these. Job rows are locked with select_for_update so
concurrent deliveries of one job (a redelivered Celery message racing a slow runner) resolve to
exactly one Evaluation on PostgreSQL; on SQLite the IMMEDIATE transactions serialise writers.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from evaluator import hidden_cases
from evaluator.harness import signing
from evaluator.harness.hidden import HIDDEN_TIER
from evaluator.models import (
    TERMINAL_JOB_STATES,
    Chip,
    Evaluation,
    EvaluationJob,
    JobEvent,
    JobState,
    Runner,
    RunnerAuditEvent,
    RunnerState,
    Tier,
)
from kgsite.celery import app as celery_app

TASK_NAME = "kgb.evaluate"
TOKEN_PREFIX = "kgbr"
# harness wall time per tier; the Celery limits add a margin on top (see _send_job)
TIER_TIMEOUT_S = {Tier.SMOKE: 300, Tier.FULL: 600, Tier.EDGE: 600, Tier.PERF: 900}


class ServiceError(Exception):
    """A refused operation with a message meant for the caller (API: 4xx, admin: a message)."""

    code = "invalid"
    status = 400

    def __init__(self, message: str, *, code: str | None = None):
        super().__init__(message)
        self.message = message
        if code:
            self.code = code


class QueueLimitExceeded(ServiceError):
    code = "queue_limit"
    status = 429


class JobForbidden(ServiceError):
    code = "forbidden"
    status = 403


class JobConflict(ServiceError):
    code = "conflict"
    status = 409


class JobNotFound(ServiceError):
    code = "not_found"
    status = 404


class HiddenCasesUnavailable(ServiceError):
    """KGB_HIDDEN_CASES_FILE is set but unusable: held-out jobs wait (runners retry a 503) rather
    than run without the cases the operator meant them to have."""

    code = "hidden_cases_unavailable"
    status = 503


# --- runner tokens -----------------------------------------------------------------------------


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _new_token() -> tuple[str, str]:
    token_id = secrets.token_hex(4)
    while Runner.objects.filter(token_id=token_id).exists():
        token_id = secrets.token_hex(4)
    return token_id, f"{TOKEN_PREFIX}_{token_id}_{secrets.token_urlsafe(32)}"


def parse_token_id(token: str) -> str | None:
    """The public id of a well-formed token, else None (malformed tokens never reach the DB)."""
    parts = token.split("_", 2)
    if len(parts) != 3 or parts[0] != TOKEN_PREFIX or len(parts[1]) != 8 or len(parts[2]) < 32 or len(token) > 200:
        return None
    try:
        int(parts[1], 16)
    except ValueError:
        return None
    return parts[1]


def runner_for_token(token: str) -> Runner | None:
    """The runner whose current token this is (constant-time hash check), or None. Any state."""
    token_id = parse_token_id(token)
    if token_id is None:
        return None
    runner = Runner.objects.select_related("chip").filter(token_id=token_id).first()
    if runner is None or not hmac.compare_digest(runner.token_hash, hash_token(token)):
        return None
    return runner


def _audit(runner: Runner, action: str, user, detail: str = "") -> None:
    RunnerAuditEvent.objects.create(runner=runner, action=action, user=user, detail=detail)


@transaction.atomic
def register_runner(*, chip: Chip, name: str, user) -> tuple[Runner, str]:
    """Create a runner for `chip`. Returns the runner and its token: shown once, stored hashed."""
    if Runner.objects.filter(chip=chip, name=name).exists():
        raise ServiceError(f"a runner named {name!r} already exists for {chip.slug}", code="duplicate")
    token_id, token = _new_token()
    runner = Runner.objects.create(
        name=name, chip=chip, token_id=token_id, token_hash=hash_token(token), created_by=user
    )
    _audit(runner, "register", user, f"chip={chip.slug}")
    return runner, token


@transaction.atomic
def rotate_token(*, runner: Runner, user) -> str:
    """Issue a new token; the old one stops working at once (new id and hash)."""
    runner = Runner.objects.select_for_update().get(pk=runner.pk)
    old_id = runner.token_id
    runner.token_id, token = _new_token()
    runner.token_hash = hash_token(token)
    runner.token_rotated_at = timezone.now()
    runner.save(update_fields=["token_id", "token_hash", "token_rotated_at"])
    _audit(runner, "rotate_token", user, f"old token id {old_id}")
    return token


@transaction.atomic
def _set_runner_state(runner: Runner, state: str, user, action: str) -> Runner:
    runner = Runner.objects.select_for_update().get(pk=runner.pk)
    previous = runner.state
    runner.state = state
    runner.save(update_fields=["state"])
    _audit(runner, action, user, f"{previous} -> {state}")
    return runner


def disable_runner(*, runner: Runner, user) -> Runner:
    """The token stops authenticating; jobs it holds are redelivered by the broker to other runners."""
    return _set_runner_state(runner, RunnerState.DISABLED, user, "disable")


def drain_runner(*, runner: Runner, user) -> Runner:
    """Finish the current job, claim no new ones (the agent shuts its workers down warm)."""
    return _set_runner_state(runner, RunnerState.DRAINING, user, "drain")


def activate_runner(*, runner: Runner, user) -> Runner:
    return _set_runner_state(runner, RunnerState.ACTIVE, user, "activate")


def audit_runner_edit(*, runner: Runner, user, changed: Iterable[str]) -> None:
    """An edit of a runner's plain fields in the admin (state and token change only through the
    functions above, which audit themselves)."""
    _audit(runner, "edit", user, "changed " + ", ".join(sorted(changed)))


def record_heartbeat(*, runner: Runner, environment: dict) -> Runner:
    runner.last_heartbeat_at = timezone.now()
    runner.last_environment = environment
    Runner.objects.filter(pk=runner.pk).update(last_heartbeat_at=runner.last_heartbeat_at, last_environment=environment)
    return runner


# --- dispatch ------------------------------------------------------------------------------------


def public_seed(operator_id: str, tier: str) -> int:
    """The public seed of an (operator, tier): the same for every submission, so public runs compare."""
    digest = hashlib.sha256(f"kgb-public:{operator_id}:{tier}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def _max_deliveries() -> int:
    return settings.KGB_MAX_JOB_DELIVERIES


def _send_job(job_id: str, queue: str, timeout_s: int) -> None:
    # by name: the site never imports the runner's task code. The soft limit lets the task report
    # a failure; the hard limit (+20%, as Read the Docs pads) kills a task that ignores it.
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


def _event(job: EvaluationJob, from_state: str, to_state: str, *, runner=None, user=None, detail: str = "") -> None:
    JobEvent.objects.create(job=job, from_state=from_state, to_state=to_state, runner=runner, user=user, detail=detail)


def _check_queue_cap(attempts: list) -> None:
    cap = settings.KGB_MAX_QUEUED_JOBS_PER_USER
    new_per_user: dict[int, int] = {}
    for attempt in attempts:
        uploader_id = attempt.submission.uploader_id
        if uploader_id is not None:
            new_per_user[uploader_id] = new_per_user.get(uploader_id, 0) + 1
    for uploader_id, new in new_per_user.items():
        pending = EvaluationJob.objects.filter(
            attempt__submission__uploader_id=uploader_id, state__in=[JobState.QUEUED, JobState.RUNNING]
        ).count()
        if pending + new > cap:
            raise QueueLimitExceeded(
                f"this would put {pending + new} evaluation jobs in the queue for one user; the limit is {cap}. "
                "Wait for your earlier submissions to finish."
            )


@transaction.atomic
def create_jobs(*, attempts: Iterable, chip: Chip, tier: str, held_out: bool = False, user=None) -> list[EvaluationJob]:
    """Record one queued job per attempt, then (after commit) send each to the chip's queue."""
    attempts = list(attempts)
    if tier not in Tier.values:
        raise ServiceError(f"unknown tier {tier!r}")
    if not chip.active:
        raise ServiceError(f"chip {chip.slug} is not active")
    _check_queue_cap(attempts)
    jobs = []
    for attempt in attempts:
        job = EvaluationJob.objects.create(
            attempt=attempt,
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


def default_tier(chip: Chip) -> str:
    return Tier.SMOKE if chip.device_type == "cpu" else Tier.FULL


@transaction.atomic
def enqueue_submission(submission, tier: str | None = None, user=None) -> list[EvaluationJob]:
    """Jobs for every attempt of a submission on its target chip (smoke on cpu, full elsewhere)."""
    from leaderboard.models import SubmissionStatus

    chip = submission.target_chip
    attempts = list(submission.attempts.select_related("submission"))
    jobs = create_jobs(
        attempts=attempts, chip=chip, tier=tier or default_tier(chip), held_out=submission.held_out, user=user
    )
    if jobs and submission.status == SubmissionStatus.RECEIVED:
        submission.status = SubmissionStatus.EVALUATING
        submission.save(update_fields=["status"])
    return jobs


def _update_submission_status(job: EvaluationJob) -> None:
    from leaderboard.models import Submission, SubmissionStatus

    submission_id = job.attempt.submission_id
    unfinished = EvaluationJob.objects.filter(attempt__submission_id=submission_id).exclude(
        state__in=TERMINAL_JOB_STATES
    )
    if not unfinished.exists():
        Submission.objects.filter(
            pk=submission_id, status__in=[SubmissionStatus.RECEIVED, SubmissionStatus.EVALUATING]
        ).update(status=SubmissionStatus.COMPLETE)


def _locked_job(job_id, runner: Runner) -> EvaluationJob:
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


def _release_runner(runner: Runner, job: EvaluationJob) -> None:
    Runner.objects.filter(pk=runner.pk, current_job=job).update(current_job=None)


@dataclass
class ClaimedJob:
    job: EvaluationJob
    payload: dict = field(default_factory=dict)


def job_payload(job: EvaluationJob) -> dict:
    """What the runner's trusted harness needs. The seed is secret on held-out jobs: the harness
    keeps it in its own process and never hands it to the candidate. Held-out `full` jobs also carry
    the operator's hidden cases (evaluator.hidden_cases), whose inputs alone reach the candidate."""
    attempt = job.attempt
    payload = {
        "job_id": str(job.id),
        "operator": attempt.operator_id,
        "tier": job.tier,
        "seed": job.secret_seed if job.held_out else public_seed(attempt.operator_id, job.tier),
        "secret_seed": job.held_out,
        "timeout_s": job.timeout_s,
        "solution": {"file_name": attempt.file_name, "source": attempt.source, "sha256": attempt.source_sha256},
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
    if isinstance(outcome, ServiceError):
        # raised after the commit, so that giving up on a poison-pill job is kept
        raise outcome
    return outcome


@transaction.atomic
def _claim_job(runner: Runner, job_id) -> ClaimedJob | ServiceError:
    job = _locked_job(job_id, runner)
    if runner.state != RunnerState.ACTIVE:
        return JobConflict(f"runner {runner.name} is {runner.state}: it takes no new jobs", code="runner_not_active")
    if job.state == JobState.DONE:
        return JobConflict("already recorded", code="already_recorded")
    if job.state in (JobState.FAILED, JobState.CANCELLED):
        return JobConflict(f"job is {job.state}", code=f"job_{job.state}")
    previous = job.state
    if job.deliveries >= _max_deliveries():
        # a job whose runs keep killing their worker is a poison pill: stop redelivering it
        job.state, job.finished_at = JobState.FAILED, timezone.now()
        job.error = f"given up after {job.deliveries} deliveries without a result (runner lost each time)"
        job.save(update_fields=["state", "finished_at", "error"])
        _event(job, previous, JobState.FAILED, runner=runner, detail=job.error)
        _update_submission_status(job)
        return JobConflict(job.error, code="job_failed")
    job.state = JobState.RUNNING
    job.deliveries += 1
    job.runner = runner
    job.started_at = timezone.now()
    job.save(update_fields=["state", "deliveries", "runner", "started_at"])
    _event(job, previous, JobState.RUNNING, runner=runner, detail=f"delivery {job.deliveries}")
    Runner.objects.filter(pk=runner.pk).update(current_job=job)
    return ClaimedJob(job=job, payload=job_payload(job))


def timing_protocol(environment: dict) -> str:
    """FLUSH:CLOCK a result was timed under; results from before the harness recorded it used the
    only protocol it had then, write:events."""
    return f"{environment.get('l2_flush') or 'write'}:{environment.get('timing_clock') or 'events'}"


def _evaluation_fields(job: EvaluationJob, result: dict) -> dict:
    cases = result.get("cases") or []
    passed = sum(1 for case in cases if case.get("passed") is True or case.get("ok") is True)
    # only a held-out job's hidden cases count (a public job is never sent any)
    hidden_passed = sum(1 for case in cases if case.get("hidden") is True and case.get("passed") is True)
    timing = result.get("timing")
    speedup = None
    sol_pct = None
    environment = result.get("environment") or {}
    if job.chip.timing_meaningful and timing_protocol(environment) == settings.KGB_RANKED_TIMING_PROTOCOL:
        if isinstance(timing, dict) and isinstance(timing.get("speedup"), int | float) and timing["speedup"] > 0:
            speedup = float(timing["speedup"])
        sol_pct = result.get("sol_pct")
    return {
        "attempt": job.attempt,
        "chip": job.chip,
        "tier": job.tier,
        "held_out": job.held_out,
        "verdict": result["verdict"],
        "reason": result.get("reason") or "",
        "cases": cases,
        "cases_total": len(cases),
        "cases_passed": passed,
        "hidden_cases_passed": hidden_passed if job.held_out else 0,
        "timing": timing,
        "speedup": speedup,
        "sol_pct": sol_pct,
        "findings": result.get("findings") or [],
        "environment": environment,
        "harness_version": str(environment.get("harness_version") or result.get("harness_version") or "")[:40],
        "result_schema": str(result.get("schema", ""))[:30],
        "duration_s": result.get("duration_s"),
        "stderr_tail": result.get("stderr_tail") or "",
    }


@transaction.atomic
def record_result(*, runner: Runner, job_id, result: dict, require_claim: bool = True) -> tuple[Evaluation, bool]:
    """Store the verdict of a job exactly once. Returns (evaluation, created); a repeated post
    returns the first evaluation with created=False. `result` must already be validated
    (evaluator.serializers.validate_result). Air-gapped imports pass require_claim=False."""
    job = _locked_job(job_id, runner)
    existing = Evaluation.objects.filter(job=job).first()
    if existing is not None:
        return existing, False
    if result.get("operator") not in (None, job.attempt.operator_id) or result.get("tier") not in (None, job.tier):
        raise JobConflict("the result is for another operator or tier than this job", code="result_mismatch")
    if require_claim:
        if job.runner_id != runner.pk:
            raise JobConflict("this job is not claimed by this runner", code="not_claimed")
        if job.state != JobState.RUNNING:
            raise JobConflict(f"job is {job.state}, not running", code=f"job_{job.state}")
    elif job.state in (JobState.FAILED, JobState.CANCELLED):
        raise JobConflict(f"job is {job.state}", code=f"job_{job.state}")
    evaluation, created = Evaluation.objects.get_or_create(
        job=job, defaults={"runner": runner, **_evaluation_fields(job, result)}
    )
    previous = job.state
    job.state = JobState.DONE
    job.runner = runner
    job.finished_at = timezone.now()
    job.save(update_fields=["state", "runner", "finished_at"])
    _event(
        job,
        previous,
        JobState.DONE,
        runner=runner,
        detail=f"verdict={evaluation.verdict}" + ("" if require_claim else " (imported)"),
    )
    _release_runner(runner, job)
    _update_submission_status(job)
    return evaluation, created


@transaction.atomic
def fail_job(*, runner: Runner, job_id, error: str) -> EvaluationJob:
    """A runner-level failure (no verdict). Back to the queue for another delivery, or failed for
    good after the delivery limit. A report on a job already final changes nothing."""
    job = _locked_job(job_id, runner)
    if job.state in TERMINAL_JOB_STATES:
        return job
    if job.runner_id != runner.pk or job.state != JobState.RUNNING:
        raise JobConflict("this job is not running on this runner", code="not_claimed")
    error = error[:4000]
    if job.deliveries >= _max_deliveries():
        job.state, job.finished_at, job.error = JobState.FAILED, timezone.now(), error
        job.save(update_fields=["state", "finished_at", "error"])
        _event(job, JobState.RUNNING, JobState.FAILED, runner=runner, detail=error)
        _update_submission_status(job)
    else:
        job.state, job.error = JobState.QUEUED, error
        job.save(update_fields=["state", "error"])
        _event(job, JobState.RUNNING, JobState.QUEUED, runner=runner, detail=f"runner failure, redelivering: {error}")
        _enqueue_after_commit(job)
    _release_runner(runner, job)
    return job


@transaction.atomic
def cancel_job(*, job: EvaluationJob, user, detail: str = "") -> EvaluationJob:
    job = EvaluationJob.objects.select_for_update().get(pk=job.pk)
    if job.state in TERMINAL_JOB_STATES:
        return job
    previous = job.state
    job.state, job.finished_at = JobState.CANCELLED, timezone.now()
    job.save(update_fields=["state", "finished_at"])
    _event(job, previous, JobState.CANCELLED, user=user, detail=detail)
    _update_submission_status(job)
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


# --- air-gapped bundles -------------------------------------------------------------------------

JOBS_SCHEMA = "kgb.jobs/1"
RESULTS_SCHEMA = "kgb.results/1"


def export_jobs(*, chip: Chip, limit: int | None = None) -> dict:
    """A job bundle of the chip's queued jobs, oldest first. Claims nothing: the jobs stay queued,
    so a live runner may still take them; whichever result arrives first is recorded."""
    jobs = (
        EvaluationJob.objects.filter(chip=chip, state=JobState.QUEUED)
        .select_related("attempt")
        .order_by("queued_at", "id")
    )
    if limit is not None:
        jobs = jobs[:limit]
    return {
        "schema": JOBS_SCHEMA,
        "chip": chip.slug,
        "timing_protocol": settings.KGB_RANKED_TIMING_PROTOCOL,  # what `bundle run` times with
        "jobs": [job_payload(job) for job in jobs],
    }


@dataclass
class ImportSummary:
    runner: Runner
    recorded: int = 0
    duplicates: int = 0
    runner_failures: list[str] = field(default_factory=list)


def import_results(*, bundle: dict, runner_name: str | None = None, user=None) -> ImportSummary:
    """Record a signed results bundle. The signature (HMAC-SHA256 keyed by the sha256 of the
    runner's token, which is exactly what the site stores) names and authenticates the runner;
    all results are validated before any is recorded, and the whole file is one transaction."""
    from evaluator.serializers import validate_result

    if not isinstance(bundle, dict) or bundle.get("schema") != RESULTS_SCHEMA:
        raise ServiceError(f"not a results bundle (schema must be {RESULTS_SCHEMA!r})")
    signature = bundle.get("signature")
    if (
        not isinstance(signature, dict)
        or not isinstance(signature.get("token_id"), str)
        or not isinstance(signature.get("hmac_sha256"), str)
    ):
        raise ServiceError("the results file is not signed (run the bundle with the runner's token)", code="unsigned")
    runner = Runner.objects.select_related("chip").filter(token_id=signature["token_id"]).first()
    if runner is None:
        raise ServiceError("the signing token is unknown or was rotated", code="bad_signature")
    results = bundle.get("results")
    if not isinstance(results, list):
        raise ServiceError("'results' must be a list")
    # the site stores sha256(token) hex, which is exactly the signing key (evaluator/harness/signing.py)
    if not signing.verify_results(results, signature, key=runner.token_hash.encode()):
        raise ServiceError(
            "the signature does not match the results (tampered file, or another runner's token)", code="bad_signature"
        )
    if runner.state == RunnerState.DISABLED:
        raise ServiceError(f"runner {runner.name} is disabled", code="runner_disabled")
    if runner_name is not None and runner.name != runner_name:
        raise ServiceError(f"the file is signed by runner {runner.name!r}, not {runner_name!r}", code="wrong_runner")
    if bundle.get("chip") != runner.chip.slug:
        raise ServiceError(f"the file is for chip {bundle.get('chip')!r}, the signing runner is for {runner.chip.slug}")

    checked: list[tuple[str, dict | None, str]] = []
    for index, item in enumerate(results):
        if (
            not isinstance(item, dict)
            or not isinstance(item.get("job_id"), str)
            or not isinstance(item.get("result"), dict)
        ):
            raise ServiceError(f"results[{index}] must be an object with job_id and result")
        result = item["result"]
        if result.get("verdict") is None and result.get("error"):
            checked.append((item["job_id"], None, str(result["error"])))
            continue
        checked.append((item["job_id"], validate_result(result, where=f"results[{index}]"), ""))

    summary = ImportSummary(runner=runner)
    with transaction.atomic():
        for job_id, result, error in checked:
            if result is None:
                summary.runner_failures.append(f"{job_id}: {error}")
                continue
            _, created = record_result(runner=runner, job_id=job_id, result=result, require_claim=False)
            summary.recorded += created
            summary.duplicates += not created
        _audit(runner, "import_results", user, f"{summary.recorded} recorded, {summary.duplicates} duplicates")
    return summary
