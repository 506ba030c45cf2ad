"""Writes of results: a runner's verdict on a job becomes exactly one Evaluation.

Recording sends evaluator.signals.evaluation_recorded and job_settled in the recording
transaction; what the leaderboard does with them (the submission's status, its leaderboard rows)
is the leaderboard's business.
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction

from evaluator import signals
from evaluator.errors import JobConflict, MalformedResult
from evaluator.harness.contract import ContractError, Result
from evaluator.models import Evaluation, EvaluationJob, Runner
from evaluator.services import result_checks
from evaluator.services.dispatch import check_lease, locked_job, release_runner, settle_job
from evaluator.vocabulary import JobState


def timing_protocol(environment: dict) -> str:
    """FLUSH:CLOCK a result was timed under; results from before the harness recorded it used the
    only protocol it had then, write:events."""
    return f"{environment.get('l2_flush') or 'write'}:{environment.get('timing_clock') or 'events'}"


def is_ranked_protocol(environment: dict) -> bool:
    """Whether a result's timings are ranked: only those timed under KGB_RANKED_TIMING_PROTOCOL."""
    return timing_protocol(environment) == settings.KGB_RANKED_TIMING_PROTOCOL


def as_result(result: Result | dict) -> Result:
    """A result document read as the contract's Result (already one: as it is); MalformedResult
    when it is off the contract. API posts and imports arrive through validate_result."""
    if isinstance(result, Result):
        return result
    try:
        return Result.from_dict(result)
    except ContractError as exc:
        raise MalformedResult(str(exc)) from None


def _evaluation_fields(job: EvaluationJob, result: Result, *, problems: list[str] = ()) -> dict:
    cases = [case.to_dict() for case in result.cases]
    passed = sum(1 for case in result.cases if case.passed is True)
    # only a held-out job's hidden cases count (a public job is never sent any)
    hidden_passed = sum(1 for case in result.cases if case.hidden is True and case.passed is True)
    environment = result.environment.to_dict()
    speedup = None
    sol_pct = None
    # a rejected result's timing is kept for the record, never as a speedup or %SOL
    if job.chip.timing_meaningful and is_ranked_protocol(environment) and not problems:
        if result.timing is not None and result.timing.speedup:
            speedup = float(result.timing.speedup)
        sol_pct = float(result.sol_pct) if result.sol_pct is not None else None
    return {
        "attempt_id": job.attempt_id,
        "chip": job.chip,
        "tier": job.tier,
        "held_out": job.held_out,
        "verdict": result.verdict,
        "reason": result.reason,
        "cases": cases,
        "cases_total": len(cases),
        "cases_passed": passed,
        "hidden_cases_passed": hidden_passed if job.held_out else 0,
        "timing": result.timing.to_dict() if result.timing is not None else None,
        "speedup": speedup,
        "sol_pct": sol_pct,
        "findings": [finding.to_dict() for finding in result.findings],
        "environment": environment,
        "harness_version": str(result.environment.harness_version or result.extra.get("harness_version") or "")[:40],
        "result_schema": result.schema[:30],
        "duration_s": result.duration_s,
        "stderr_tail": result.stderr_tail,
        "rejected_reason": "; ".join(problems),
    }


@transaction.atomic
def record_result(
    *, runner: Runner, job_id, result: Result | dict, require_claim: bool = True, lease=None
) -> tuple[Evaluation, bool]:
    """Store the verdict of a job exactly once. Returns (evaluation, created); a repeated post
    returns the first evaluation with created=False. `result` must already be validated
    (evaluator.serializers.validate_result; a dict is read as a Result). `lease`, which runner agents send, must be the job's
    current claim lease (a delivery whose lease ran out and went to another is refused,
    `lease_lost`). Air-gapped imports pass require_claim=False."""
    result = as_result(result)
    job = locked_job(job_id, runner)
    existing = Evaluation.objects.filter(job=job).first()
    if existing is not None:
        return existing, False
    if result.operator not in (None, job.attempt.operator_id) or result.tier not in (None, job.tier):
        raise JobConflict("the result is for another operator or tier than this job", code="result_mismatch")
    if require_claim:
        if job.runner_id != runner.pk:
            raise JobConflict("this job is not claimed by this runner", code="not_claimed")
        # under its last lease, a result also counts when the job was queued again meanwhile (its
        # runner went unheard) and no other delivery took it: the first result wins
        allowed = (JobState.RUNNING, JobState.QUEUED) if lease is not None else (JobState.RUNNING,)
        if job.state not in allowed:
            raise JobConflict(f"job is {job.state}, not running", code=f"job_{job.state}")
        check_lease(job, lease)
    elif job.state in (JobState.FAILED, JobState.CANCELLED):
        raise JobConflict(f"job is {job.state}", code=f"job_{job.state}")
    # checked against its job before anything is ranked: a result with problems is recorded, rejected
    problems = result_checks.problems_with_result(job=job, result=result)
    evaluation = Evaluation.objects.create(job=job, runner=runner, **_evaluation_fields(job, result, problems=problems))
    signals.evaluation_recorded.send(sender=Evaluation, evaluation=evaluation)
    job.runner = runner
    settle_job(
        job,
        JobState.DONE,
        runner=runner,
        detail=f"verdict={evaluation.verdict}" + ("" if require_claim else " (imported)"),
    )
    release_runner(runner, job)
    return evaluation, True
