"""Test mode: unranked checks of one kernel source on one chip's runners (POST /api/v1/verify/).

A check is a VerifyJob, never an Attempt or an Evaluation, so no leaderboard can count it; a submission's
ranked runs evaluate every file again (held-out runs with a secret seed and the hidden cases). A check gets
the public cases of the smoke or full tier under a fresh public seed, which its owner sees; it never carries
the hidden cases or a secret seed.

Checks go to the chip's test queue (`chip.<slug>.test`), which the chip's runners consume after the ranked
queue (evaluator.api.runner_config), and reach the runner through the same claim, lease and result endpoints
as ranked jobs: the runner cannot tell them apart and needs no code of its own. Unlike a ranked job, a check
whose runner reports a failure is not delivered again (its owner asks again), and one that no runner finished
within KGB_VERIFY_EXPIRE_S is given up. Each user has KGB_VERIFY_PER_HOUR checks per chip per hour, or what
an admin set in a VerifyQuota row.
"""

from __future__ import annotations

import hashlib
import math
import re
import secrets
import uuid
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from evaluator import selectors
from evaluator.errors import JobConflict, JobForbidden, JobNotFound, MalformedResult, VerifyQuotaExceeded
from evaluator.harness.contract import Result
from evaluator.models import Chip, Runner, VerifyJob, VerifyQuota
from evaluator.services.dispatch import TIER_TIMEOUT_S, lease_fields, lease_s, public_seed, send_job_message
from evaluator.vocabulary import JobState, RunnerState, Tier
from kgsite.errors import ApplicationError, ErrorItem, Invalid
from operators.models import Operator

VERIFY_TIERS = (Tier.SMOKE, Tier.FULL)
QUOTA_WINDOW_S = 3600
RUN_LABEL = re.compile(r"[A-Za-z0-9._:-]{1,64}")


def _refuse(where: str, message: str, *, error: type[ApplicationError] = Invalid, code: str | None = None):
    return error(f"{where}: {message}", code=code, errors=[ErrorItem(where, message)])


def quota_per_hour(*, user_id: int, chip: Chip) -> int:
    """The user's checks per hour on the chip: their VerifyQuota for the chip, else for every chip, else the
    site's KGB_VERIFY_PER_HOUR."""
    rows = dict(
        VerifyQuota.objects.filter(Q(chip=chip) | Q(chip__isnull=True), user_id=user_id).values_list(
            "chip_id", "per_hour"
        )
    )
    return rows.get(chip.pk, rows.get(None, settings.KGB_VERIFY_PER_HOUR))


def _this_hour(*, user_id: int, chip_id: int, now):
    return VerifyJob.objects.filter(
        owner_id=user_id, chip_id=chip_id, created_at__gt=now - timedelta(seconds=QUOTA_WINDOW_S)
    )


def quota_state(*, user_id: int, chip: Chip) -> dict:
    """What a check's answer says of the quota: checks per hour on the chip and those of the last hour."""
    used = _this_hour(user_id=user_id, chip_id=chip.pk, now=timezone.now()).count()
    return {"per_hour": quota_per_hour(user_id=user_id, chip=chip), "used": used}


def _check_quota(*, user_id: int, chip: Chip, now) -> None:
    # every check counts, whatever its outcome: a kernel that breaks the runner must not get free retries
    allowed = quota_per_hour(user_id=user_id, chip=chip)
    since = now - timedelta(seconds=QUOTA_WINDOW_S)
    used = _this_hour(user_id=user_id, chip_id=chip.pk, now=now)
    count = used.count()
    if count < allowed:
        return
    oldest = used.order_by("created_at").values_list("created_at", flat=True).first()
    wait = QUOTA_WINDOW_S if oldest is None else (oldest - since).total_seconds()
    raise VerifyQuotaExceeded(
        f"test-mode quota spent: {count} of {allowed} checks per hour on {chip.slug}. The next one is allowed in "
        f"{math.ceil(wait)} s (Retry-After); an admin can raise your quota.",
        retry_after_s=max(1, math.ceil(wait)),
    )


def _source_problem(source: str) -> str:
    if not source.strip():
        return "is empty"
    if "\x00" in source:
        return "contains a NUL character"
    try:
        size = len(source.encode("utf-8"))
    except UnicodeEncodeError:
        return "is not valid UTF-8 text (a lone surrogate)"
    if size > settings.KGB_VERIFY_MAX_SOURCE_BYTES:
        return f"is {size} bytes; the limit is {settings.KGB_VERIFY_MAX_SOURCE_BYTES}"
    return ""


def _fresh_seed(operator_id: str, tier: str) -> int:
    # public and drawn per check; never the seed of the ranked public run of the same cases
    ranked = public_seed(operator_id, tier)
    while (seed := secrets.randbits(32)) == ranked:
        continue
    return seed


@transaction.atomic
def request_check(
    *, user: AbstractBaseUser, operator_id: str, chip_slug: str, tier: str, source: str, run_label: str = ""
) -> VerifyJob:
    """Record a test-mode check and (after commit) send it to the chip's test queue. Refused, storing nothing,
    for an unknown operator or chip, a chip without an active runner, a tier other than smoke or full, a source
    that is empty or too large, a malformed run label, or a spent hourly quota (429 with Retry-After)."""
    if tier not in VERIFY_TIERS:
        raise _refuse("tier", f"test mode runs the smoke or full tier, not {tier!r}")
    operator = Operator.objects.filter(pk=operator_id, in_catalog=True).first()
    if operator is None:
        raise _refuse("operator", f"unknown operator {operator_id!r} (see /operators/)")
    chip = Chip.objects.filter(slug=chip_slug, active=True).first()
    if chip is None:
        raise _refuse("chip", f"unknown chip {chip_slug!r}")
    if not Runner.objects.filter(chip=chip, state=RunnerState.ACTIVE).exists():
        raise _refuse("chip", f"chip {chip.slug} has no active runner to check on", error=JobConflict, code="no_runner")
    problem = _source_problem(source)
    if problem:
        raise _refuse("source", problem)
    if run_label and not RUN_LABEL.fullmatch(run_label):
        raise _refuse("run", "must be at most 64 letters, digits or . _ : - (the client's run id)")
    # one user's checks are counted one at a time: two concurrent requests cannot both take the last one
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    now = timezone.now()
    _check_quota(user_id=user.pk, chip=chip, now=now)
    job = VerifyJob.objects.create(
        owner=user,
        chip=chip,
        operator=operator,
        tier=tier,
        run_label=run_label,
        source=source,
        source_sha256=hashlib.sha256(source.encode("utf-8")).hexdigest(),
        seed=_fresh_seed(operator.pk, tier),
        timeout_s=TIER_TIMEOUT_S[tier],
        created_at=now,
    )
    job_id, queue, timeout_s = str(job.id), chip.test_queue_name, job.timeout_s
    # robust: a broker that is down leaves the check queued; it expires unless the broker comes back
    transaction.on_commit(lambda: send_job_message(job_id, queue, timeout_s), robust=True)
    return job


def _expired(job: VerifyJob, now) -> bool:
    return (
        job.state in (JobState.QUEUED, JobState.RUNNING)
        and (now - job.created_at).total_seconds() > settings.KGB_VERIFY_EXPIRE_S
    )


def _settle(job: VerifyJob, state: str, *, error: str = "", result: dict | None = None) -> None:
    job.state, job.finished_at, job.result = state, timezone.now(), result
    job.lease_id = job.lease_expires_at = None
    job.error = error[:4000]
    job.save(update_fields=["state", "finished_at", "result", "lease_id", "lease_expires_at", "error", "runner"])


def _expire(job: VerifyJob) -> None:
    hours = settings.KGB_VERIFY_EXPIRE_S / 3600
    _settle(
        job,
        JobState.FAILED,
        error=f"given up: no runner of {job.chip.slug} finished the check within {hours:g} h "
        "(ranked evaluations go first; ask again later)",
    )


@transaction.atomic
def check_for_owner(*, user: AbstractBaseUser, job_id) -> VerifyJob:
    """The user's own check (another user's answers as absent); one past KGB_VERIFY_EXPIRE_S is given up."""
    try:
        job = VerifyJob.objects.select_for_update(of=("self",)).select_related("chip", "operator").get(pk=job_id)
    except (VerifyJob.DoesNotExist, ValueError):
        raise JobNotFound(f"no test-mode check {job_id}") from None
    if job.owner_id != user.pk:
        raise JobNotFound(f"no test-mode check {job_id}")
    if _expired(job, timezone.now()):
        _expire(job)
    return job


# --- the runner side: the runner API's job endpoints route a check's id here (evaluator.api) ------------------


def check_access(*, runner: Runner, job_id) -> bool:
    """Whether `job_id` is a test-mode check (False: a ranked job, or nothing); 403 when it is another chip's,
    before anything else is looked at, as for ranked jobs."""
    chip_id = VerifyJob.objects.filter(pk=job_id).values_list("chip_id", flat=True).first()
    if chip_id is None:
        return False
    if chip_id != runner.chip_id:
        raise JobForbidden(f"job {job_id} is for another chip than this runner's ({runner.chip.slug})")
    return True


def _locked(job_id, runner: Runner) -> VerifyJob:
    try:
        job = VerifyJob.objects.select_for_update(of=("self",)).select_related("chip", "operator").get(pk=job_id)
    except (VerifyJob.DoesNotExist, ValueError):
        raise JobNotFound(f"no job {job_id}") from None
    if job.chip_id != runner.chip_id:
        raise JobForbidden(f"job {job_id} is for another chip than this runner's ({runner.chip.slug})")
    return job


def check_payload(job: VerifyJob) -> dict:
    """What the runner's harness needs, in the shape of a ranked job's (evaluator.services.job_payload): the
    public seed, no hidden cases."""
    operator = job.operator
    return {
        "job_id": str(job.id),
        "operator": operator.pk,
        "tier": job.tier,
        "seed": job.seed,
        "secret_seed": False,
        "timeout_s": job.timeout_s,
        "solution": {
            "file_name": f"{operator.source}__{operator.name}.py",
            "source": job.source,
            "sha256": job.source_sha256,
        },
        "ceilings": selectors.chip_ceilings(chip=job.chip),
    }


@dataclass
class ClaimedCheck:
    job: VerifyJob
    payload: dict


def claim_check(*, runner: Runner, job_id) -> ClaimedCheck:
    """queued -> running by this runner under a new lease, as claim_job does for ranked jobs: a duplicate
    message of a check under a live lease is refused (`leased`), one whose lease ran out is taken over."""
    outcome = _claim_check(runner, job_id)
    if isinstance(outcome, ApplicationError):
        raise outcome  # after the commit: an expired or given-up check stays so
    return outcome


@transaction.atomic
def _claim_check(runner: Runner, job_id) -> ClaimedCheck | ApplicationError:
    job = _locked(job_id, runner)
    now = timezone.now()
    if runner.state != RunnerState.ACTIVE:
        return JobConflict(f"runner {runner.name} is {runner.state}: it takes no new jobs", code="runner_not_active")
    if job.state == JobState.DONE:
        return JobConflict("already recorded", code="already_recorded")
    if _expired(job, now):
        _expire(job)
    if job.state == JobState.FAILED:
        return JobConflict(f"job is failed: {job.error}", code="job_failed")
    if job.state == JobState.RUNNING and job.lease_expires_at is not None and job.lease_expires_at > now:
        return JobConflict("job is running under a live lease: this message is a duplicate", code="leased")
    if job.deliveries >= settings.KGB_MAX_JOB_DELIVERIES:
        _settle(job, JobState.FAILED, error=f"given up after {job.deliveries} deliveries without a result")
        return JobConflict(job.error, code="job_failed")
    job.state, job.runner, job.started_at = JobState.RUNNING, runner, now
    job.deliveries += 1
    job.lease_id, job.lease_expires_at = uuid.uuid4(), now + timedelta(seconds=lease_s())
    job.save(update_fields=["state", "runner", "started_at", "deliveries", "lease_id", "lease_expires_at"])
    return ClaimedCheck(job=job, payload={**check_payload(job), "lease": lease_fields(job)})


def _check_holder(job: VerifyJob, runner: Runner, lease) -> None:
    if job.state != JobState.RUNNING or job.runner_id != runner.pk:
        raise JobConflict(f"job is {job.state} and not held by this runner", code="lease_lost")
    if lease is not None and str(job.lease_id) != str(lease):
        raise JobConflict("this lease is no longer the job's", code="lease_lost")


@transaction.atomic
def renew_check_lease(*, runner: Runner, job_id, lease) -> VerifyJob:
    job = _locked(job_id, runner)
    _check_holder(job, runner, lease)
    job.lease_expires_at = timezone.now() + timedelta(seconds=lease_s())
    job.save(update_fields=["lease_expires_at"])
    return job


@transaction.atomic
def record_check_result(*, runner: Runner, job_id, result: Result, lease=None) -> tuple[VerifyJob, bool]:
    """Store the harness's feedback on a check once (a repeated post returns it with created=False). `result`
    is validated (evaluator.serializers.validate_result); one for another operator or tier, or claiming a secret
    seed or hidden cases, is refused whole (400: the runner then reports a failure)."""
    job = _locked(job_id, runner)
    if job.state == JobState.DONE:
        return job, False
    _check_holder(job, runner, lease)
    if result.operator not in (None, job.operator_id) or result.tier not in (None, job.tier):
        raise MalformedResult("the result is for another operator or tier than this test-mode check")
    if result.seed_kind == "secret" or any(case.hidden for case in result.cases):
        raise MalformedResult("a test-mode check runs public cases under a public seed only")
    _settle(job, JobState.DONE, result=result.to_dict())
    return job, True


@transaction.atomic
def fail_check(*, runner: Runner, job_id, error: str, lease=None) -> VerifyJob:
    """A runner-level failure: the check fails with it (not delivered again; its owner may ask again)."""
    job = _locked(job_id, runner)
    if job.state in (JobState.DONE, JobState.FAILED):
        return job
    _check_holder(job, runner, lease)
    _settle(job, JobState.FAILED, error=f"runner failure: {error}")
    return job
