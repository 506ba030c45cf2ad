"""Air-gapped chips: a job bundle out (the chip's queued jobs), a signed results bundle in."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from evaluator import selectors
from evaluator.harness import signing
from evaluator.models import Chip, EvaluationJob, Runner
from evaluator.serializers import validate_result
from evaluator.services.dispatch import job_payload
from evaluator.services.fleet import audit
from evaluator.services.results import record_result
from evaluator.vocabulary import JobState, RunnerState
from kgsite.errors import Forbidden, Invalid

JOBS_SCHEMA = "kgb.jobs/1"
RESULTS_SCHEMA = "kgb.results/1"


def export_jobs(*, chip: Chip, limit: int | None = None) -> dict:
    """A job bundle of the chip's queued jobs, oldest first. Claims nothing: the jobs stay queued,
    so a live runner may still take them; whichever result arrives first is recorded. `ceilings`
    (the chip's, as the site ranks them) are in the format of the harness CLI's `--peaks FILE`."""
    jobs = (
        EvaluationJob.objects.filter(chip=chip, state=JobState.QUEUED)
        .select_related("attempt", "chip")
        .order_by("queued_at", "id")
    )
    if limit is not None:
        jobs = jobs[:limit]
    return {
        "schema": JOBS_SCHEMA,
        "chip": chip.slug,
        "timing_protocol": settings.KGB_RANKED_TIMING_PROTOCOL,  # what `bundle run` times with
        "ceilings": selectors.chip_ceilings(chip=chip),
        "jobs": [job_payload(job) for job in jobs],
    }


@dataclass
class ImportSummary:
    runner: Runner
    recorded: int = 0
    duplicates: int = 0
    runner_failures: list[str] = field(default_factory=list)


def _signing_runner(bundle: object) -> tuple[Runner, list]:
    """The runner whose token signed the bundle, and its results; refused unless the signature holds."""
    if not isinstance(bundle, dict) or bundle.get("schema") != RESULTS_SCHEMA:
        raise Invalid(f"not a results bundle (schema must be {RESULTS_SCHEMA!r})")
    signature = bundle.get("signature")
    if (
        not isinstance(signature, dict)
        or not isinstance(signature.get("token_id"), str)
        or not isinstance(signature.get("hmac_sha256"), str)
    ):
        raise Invalid("the results file is not signed (run the bundle with the runner's token)", code="unsigned")
    runner = Runner.objects.select_related("chip").filter(token_id=signature["token_id"]).first()
    if runner is None:
        raise Invalid("the signing token is unknown or was rotated", code="bad_signature")
    results = bundle.get("results")
    if not isinstance(results, list):
        raise Invalid("'results' must be a list")
    # the site stores sha256(token) hex, which is exactly the signing key (evaluator/harness/signing.py)
    if not signing.verify_results(results, signature, key=runner.token_hash.encode()):
        raise Invalid(
            "the signature does not match the results (tampered file, or another runner's token)", code="bad_signature"
        )
    return runner, results


def import_results(
    *, bundle: dict, runner_name: str | None = None, user: AbstractBaseUser | None = None
) -> ImportSummary:
    """Record a signed results bundle. The signature (HMAC-SHA256 keyed by the sha256 of the
    runner's token, which is exactly what the site stores) names and authenticates the runner;
    all results are validated before any is recorded, and the whole file is one transaction."""
    runner, results = _signing_runner(bundle)
    if runner.state == RunnerState.DISABLED:
        raise Forbidden(f"runner {runner.name} is disabled", code="runner_disabled")
    if runner_name is not None and runner.name != runner_name:
        raise Invalid(f"the file is signed by runner {runner.name!r}, not {runner_name!r}", code="wrong_runner")
    if bundle.get("chip") != runner.chip.slug:
        raise Invalid(f"the file is for chip {bundle.get('chip')!r}, the signing runner is for {runner.chip.slug}")

    checked: list[tuple[str, dict | None, str]] = []
    for index, item in enumerate(results):
        if (
            not isinstance(item, dict)
            or not isinstance(item.get("job_id"), str)
            or not isinstance(item.get("result"), dict)
        ):
            raise Invalid(f"results[{index}] must be an object with job_id and result")
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
        audit(runner, "import_results", user, f"{summary.recorded} recorded, {summary.duplicates} duplicates")
    return summary
