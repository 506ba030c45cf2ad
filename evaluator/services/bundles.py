"""Air-gapped chips: a job bundle out (the chip's queued jobs), a signed results bundle in."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from evaluator import selectors
from evaluator.errors import MalformedResult
from evaluator.harness import RESULTS_SCHEMA, signing
from evaluator.harness.contract import ContractError, Job, JobBundle, ResultsBundle
from evaluator.models import Chip, EvaluationJob, Runner
from evaluator.serializers import validate_result
from evaluator.services import fair_share
from evaluator.services.dispatch import job_payload
from evaluator.services.fleet import audit
from evaluator.services.results import record_result
from evaluator.vocabulary import JobState, RunnerState
from kgsite.errors import Forbidden, Invalid


def export_jobs(*, chip: Chip, limit: int | None = None) -> dict:
    """A job bundle of the chip's queued jobs, round robin across their owners (fair_share.fair_order:
    a `limit` takes every owner's oldest first, not the biggest upload's). Claims nothing: the jobs stay
    queued, so a live runner may still take them; whichever result arrives first is recorded. `ceilings`
    (the chip's, as the site ranks them) are in the format of the harness CLI's `--peaks FILE`."""
    jobs = fair_share.fair_order(
        EvaluationJob.objects.filter(chip=chip, state=JobState.QUEUED).select_related("attempt", "chip")
    )
    if limit is not None:
        jobs = jobs[:limit]
    return JobBundle(
        chip=chip.slug,
        timing_protocol=settings.KGB_RANKED_TIMING_PROTOCOL,  # what `bundle run` times with
        ceilings=selectors.chip_ceilings(chip=chip),
        jobs=tuple(Job.from_dict(job_payload(job)) for job in jobs),
    ).to_dict()


@dataclass
class ImportSummary:
    runner: Runner
    recorded: int = 0
    duplicates: int = 0
    runner_failures: list[str] = field(default_factory=list)


SIGN_HINT = (
    "sign it with the runner's Ed25519 private key: `python -m evaluator bundle run ... --signing-key KEY`, "
    "or afterwards `python -m evaluator bundle sign RESULTS.json --signing-key KEY`"
)


def _signing_runner(bundle: object) -> Runner:
    """The runner whose Ed25519 key signed the bundle, and its results; refused unless the signature
    holds under the public key the site stores. Nothing the site stores or shows can make one."""
    if not isinstance(bundle, dict) or bundle.get("schema") != RESULTS_SCHEMA:
        raise Invalid(f"not a results bundle (schema must be {RESULTS_SCHEMA!r})")
    signature = bundle.get("signature")
    problem = signing.signature_problem(signature)
    if problem == "retired":
        raise Invalid(
            "the results file is signed with the retired HMAC scheme (keyed by the token hash the site stores, so "
            f"anyone who could read it could forge results); such files are refused: {SIGN_HINT}",
            code="retired_signature",
        )
    if not isinstance(signature, dict):
        raise Invalid(f"the results file is not signed: {SIGN_HINT}", code="unsigned")
    if problem is not None:
        raise Invalid(problem, code="bad_signature")
    runner = (
        Runner.objects.select_related("chip")
        .filter(signing_key_id=signature["key_id"])
        .exclude(signing_key_id="")
        .first()
    )
    if runner is None:
        raise Invalid(
            f"the signing key {signature['key_id'][:16]!r} is no runner's (unknown, or replaced by a new key)",
            code="bad_signature",
        )
    if not signing.verify_document(bundle, runner.signing_public_key):
        raise Invalid(
            "the signature does not match the file (tampered with, or signed with another key)", code="bad_signature"
        )
    return runner


def import_results(
    *, bundle: dict, runner_name: str | None = None, user: AbstractBaseUser | None = None
) -> ImportSummary:
    """Record a signed results bundle. The signature (Ed25519, by the runner's private key, checked
    with the public key the site stores) names and authenticates the runner and covers the whole
    file; all results are validated before any is recorded, and the whole file is one transaction.
    Files signed with the retired HMAC scheme are refused (`retired_signature`)."""
    runner = _signing_runner(bundle)  # the signature covers the document as sent: checked before it is read
    try:
        document = ResultsBundle.read(bundle, lambda result, where: validate_result(result, where=where))
    except ContractError as exc:
        raise MalformedResult(str(exc)) from None
    if runner.state == RunnerState.DISABLED:
        raise Forbidden(f"runner {runner.name} is disabled", code="runner_disabled")
    if runner_name is not None and runner.name != runner_name:
        raise Invalid(f"the file is signed by runner {runner.name!r}, not {runner_name!r}", code="wrong_runner")
    if document.chip != runner.chip.slug:
        raise Invalid(f"the file is for chip {document.chip!r}, the signing runner is for {runner.chip.slug}")

    summary = ImportSummary(runner=runner)
    with transaction.atomic():
        for item in document.results:
            if item.result is None:
                summary.runner_failures.append(f"{item.job_id}: {item.error}")
                continue
            _, created = record_result(runner=runner, job_id=item.job_id, result=item.result, require_claim=False)
            summary.recorded += created
            summary.duplicates += not created
        audit(runner, "import_results", user, f"{summary.recorded} recorded, {summary.duplicates} duplicates")
    return summary
