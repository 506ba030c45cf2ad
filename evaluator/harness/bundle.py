"""Job bundles for air-gapped runners: `kgb.jobs/1` in, `kgb.results/1` out (docs/harness.md).

The results document is signed with the runner's Ed25519 private key when one is given
(evaluator.harness.signing, which needs the `cryptography` package); otherwise it is written
unsigned and signed afterwards where the key is (`python -m evaluator bundle sign`).

A job whose bundle entry is malformed (unknown operator, bad tier, sha256 not matching the
source) gets a result with verdict runtime_error and a reason starting "bundle:"; the run goes on.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import threading
from collections.abc import Callable
from typing import Any

from evaluator.harness import RANKED_FAIL_FAST, signing
from evaluator.harness.backends import DEFAULT_TIMING_PROTOCOL, parse_timing_protocol
from evaluator.harness.contract import (
    TIERS,
    ContractError,
    Environment,
    Job,
    JobBundle,
    Result,
    ResultItem,
    ResultsBundle,
)
from evaluator.harness.evaluate import HarnessError
from evaluator.harness.harness import TIMED_TIERS, Harness, HarnessConfig, PendingResult


class BundleError(ContractError):
    """The bundle as a whole is unusable (wrong schema, no job list)."""


def _bundle_error(job: Any, reason: str, environment: Environment) -> Result:
    entry = job if isinstance(job, dict) else {}
    return Result(
        verdict="runtime_error",
        reason=f"bundle: {reason}",
        operator=str(entry.get("operator", "")),
        tier=entry.get("tier") if entry.get("tier") in TIERS else None,  # a tier the contract lacks is not echoed
        seed_kind="secret" if entry.get("secret_seed") else "public",
        environment=environment,
        duration_s=0.0,
    )


def run_bundle(
    jobs: dict[str, Any],
    *,
    config: HarnessConfig | None = None,
    workers: int = 1,
    timing: bool = True,
    flush: str | None = None,
    clock: str | None = None,
    progress: Callable[[str], None] | None = None,
    checkpoint: Callable[[dict[str, Any]], None] | None = None,
    signing_key: Any = None,
) -> dict[str, Any]:
    """The signed results document of a job bundle, evaluated with `config` (the bundle supplies
    the chip, `workers` the pool size; `timing=False` checks correctness only). The timing
    protocol is `flush`/`clock` where given, else the bundle's, else the default. `checkpoint`,
    when given, receives a complete (signed) document of the jobs finished so far after each
    one, so a run cut off by a time limit keeps what it finished. `signing_key` (from
    signing.load_private_key) signs every document; without it they are unsigned."""
    try:
        bundle, job_list = JobBundle.envelope(jobs)
    except ContractError as exc:
        raise BundleError(f"not a usable job bundle: {exc}") from None
    say = progress or (lambda message: None)
    # the timing protocol: as asked, else as the site that exported the bundle ranks, else the default
    try:
        bundle_flush, bundle_clock = parse_timing_protocol(bundle.timing_protocol or DEFAULT_TIMING_PROTOCOL)
    except ValueError as exc:
        raise BundleError(f"the bundle's 'timing_protocol': {exc}") from None
    config = dataclasses.replace(
        config or HarnessConfig(fail_fast_after=RANKED_FAIL_FAST),
        chip=bundle.chip,
        pool_size=max(1, workers),
        time_tiers=TIMED_TIERS if timing else (),
        flush=flush or bundle_flush,
        clock=clock or bundle_clock,
    )
    with Harness(config) as harness:
        environment = Environment.from_dict(harness.environment)
        finished: dict[int, ResultItem] = {}  # by job number, filled as workers finish
        finished_lock = threading.Lock()

        def failed(entry: Any, exc: BaseException) -> Result:
            if isinstance(exc, (KeyError, HarnessError, ValueError)):  # ContractError too: a result off the contract
                return _bundle_error(entry, f"{type(exc).__name__}: {exc}", environment)
            # a harness failure on one job must not lose the others
            return _bundle_error(entry, f"harness failure: {type(exc).__name__}: {exc}", environment)

        def public(number: int, entry: Any) -> PendingResult | Result:
            try:
                job = Job.from_dict(entry, "job")
            except ContractError as exc:
                return _bundle_error(entry, str(exc), environment)
            try:
                return harness.evaluate_public(
                    job.operator,
                    job.solution.source,
                    tier=job.tier,
                    seed=job.seed,
                    secret_seed=job.secret_seed,
                    timeout_s=float(job.timeout_s),
                    file_name=job.solution.file_name or None,
                    hidden_cases=[dict(case) for case in job.hidden_cases] if job.hidden_cases else None,
                )
            except Exception as exc:
                return failed(entry, exc)

        def complete(number: int, entry: Any, started: PendingResult | Result) -> ResultItem:
            job_id = entry.get("job_id") if isinstance(entry, dict) else None
            job_id = job_id if isinstance(job_id, str) and job_id else f"#{number}"
            result = started
            if not isinstance(started, Result):
                try:
                    result = Result.from_dict(started.complete())
                except Exception as exc:
                    result = failed(entry, exc)
            item = ResultItem(job_id=job_id, result=result)
            with finished_lock:
                finished[number] = item
                say(
                    f"[{len(finished)}/{len(job_list)}] {job_id} {result.operator}: {result.verdict} "
                    f"({result.duration_s or 0.0:.1f} s)"
                )
                if checkpoint is not None:
                    checkpoint(
                        _document(harness.chip, environment, [finished[n] for n in sorted(finished)], signing_key)
                    )
            return item

        # every job's public run first, then the held-out cases: a held-out phase is never followed
        # by another job's public run, whose candidate could otherwise time it (a hidden shape's
        # size told by how long a candidate spun on it). With several workers, attempts check side
        # by side and take the device alone to time (harness.gate); results keep the job order.
        numbers = range(1, len(job_list) + 1)
        if workers > 1:
            with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as executor:
                started = list(executor.map(public, numbers, job_list))
                results = list(executor.map(complete, numbers, job_list, started))
        else:
            started = [public(number, job) for number, job in zip(numbers, job_list, strict=True)]
            results = [complete(n, job, s) for n, job, s in zip(numbers, job_list, started, strict=True)]
    return _document(harness.chip, environment, results, signing_key)


def _document(chip: str, environment: Environment, results: list[ResultItem], signing_key: Any) -> dict[str, Any]:
    document = ResultsBundle(chip=chip, environment=environment, results=tuple(results)).to_dict()
    document["signature"] = signing.sign_document(document, signing_key) if signing_key is not None else None
    return document
