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
import hashlib
import threading
from collections.abc import Callable
from typing import Any

from evaluator.harness import JOBS_SCHEMA, RANKED_FAIL_FAST, RESULT_SCHEMA, RESULTS_SCHEMA, signing
from evaluator.harness.backends import DEFAULT_TIMING_PROTOCOL, parse_timing_protocol
from evaluator.harness.evaluate import HarnessError
from evaluator.harness.harness import TIMED_TIERS, Harness, HarnessConfig
from evaluator.harness.result import new_result

TIERS = ("smoke", "full", "edge", "perf")


class BundleError(ValueError):
    """The bundle as a whole is unusable (wrong schema, no job list)."""


def _bundle_error(job: dict[str, Any], tier: str, reason: str, environment: dict[str, Any]) -> dict[str, Any]:
    result = new_result(
        str(job.get("operator", "")), tier, "secret" if job.get("secret_seed") else "public", environment
    )
    result["verdict"] = "runtime_error"
    result["reason"] = f"bundle: {reason}"
    assert result["schema"] == RESULT_SCHEMA
    return result


def _job_problem(job: Any) -> str | None:
    if not isinstance(job, dict):
        return "job is not an object"
    if not isinstance(job.get("job_id"), str) or not job["job_id"]:
        return "job_id missing"
    if not isinstance(job.get("operator"), str):
        return "operator missing"
    if job.get("tier") not in TIERS:
        return f"unknown tier {job.get('tier')!r}"
    seed = job.get("seed")
    if seed is not None and (type(seed) is not int or seed < 0):
        return "seed must be a non-negative integer or null"
    solution = job.get("solution")
    if not isinstance(solution, dict) or not isinstance(solution.get("source"), str):
        return "solution.source missing"
    digest = hashlib.sha256(solution["source"].encode("utf-8")).hexdigest()
    if solution.get("sha256") != digest:
        return "solution sha256 does not match its source"
    timeout = job.get("timeout_s", 300)
    if not isinstance(timeout, (int, float)) or timeout <= 0:
        return "timeout_s must be a positive number"
    if not isinstance(job.get("hidden_cases", []), list):
        return "hidden_cases must be a list"
    return None


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
    if not isinstance(jobs, dict) or jobs.get("schema") != JOBS_SCHEMA:
        raise BundleError(f"not a job bundle (schema must be {JOBS_SCHEMA!r})")
    job_list = jobs.get("jobs")
    if not isinstance(job_list, list):
        raise BundleError("the bundle has no 'jobs' list")
    say = progress or (lambda message: None)
    chip = jobs.get("chip") if isinstance(jobs.get("chip"), str) else None
    # the timing protocol: as asked, else as the site that exported the bundle ranks, else the default
    try:
        bundle_flush, bundle_clock = parse_timing_protocol(jobs.get("timing_protocol", DEFAULT_TIMING_PROTOCOL))
    except ValueError as exc:
        raise BundleError(f"the bundle's 'timing_protocol': {exc}") from None
    config = dataclasses.replace(
        config or HarnessConfig(fail_fast_after=RANKED_FAIL_FAST),
        chip=chip,
        pool_size=max(1, workers),
        time_tiers=TIMED_TIERS if timing else (),
        flush=flush or bundle_flush,
        clock=clock or bundle_clock,
    )
    with Harness(config) as harness:
        environment = dict(harness.environment)
        finished: dict[int, dict[str, Any]] = {}  # by job number, filled as workers finish
        finished_lock = threading.Lock()

        def one(number: int, job: Any) -> dict[str, Any]:
            job_id = job.get("job_id", f"#{number}") if isinstance(job, dict) else f"#{number}"
            tier = job.get("tier", "") if isinstance(job, dict) else ""
            problem = _job_problem(job)
            if problem is None:
                try:
                    result = harness.evaluate(
                        job["operator"],
                        job["solution"]["source"],
                        tier=job["tier"],
                        seed=job.get("seed"),
                        secret_seed=bool(job.get("secret_seed")),
                        timeout_s=float(job.get("timeout_s", 300)),
                        file_name=job["solution"].get("file_name") or None,
                        hidden_cases=job.get("hidden_cases"),
                    )
                except (KeyError, HarnessError, ValueError) as exc:
                    result = _bundle_error(job, tier, f"{type(exc).__name__}: {exc}", environment)
                except Exception as exc:  # a harness failure on one job must not lose the others
                    result = _bundle_error(job, tier, f"harness failure: {type(exc).__name__}: {exc}", environment)
            else:
                result = _bundle_error(job if isinstance(job, dict) else {}, str(tier), problem, environment)
            item = {"job_id": str(job_id), "result": result}
            with finished_lock:
                finished[number] = item
                say(
                    f"[{len(finished)}/{len(job_list)}] {job_id} {result['operator']}: {result['verdict']} "
                    f"({result['duration_s']:.1f} s)"
                )
                if checkpoint is not None:
                    checkpoint(
                        _document(harness.chip, environment, [finished[n] for n in sorted(finished)], signing_key)
                    )
            return item

        # with several workers, attempts check side by side and take the device alone to time
        # (harness.gate); results keep the bundle's job order either way
        if workers > 1:
            with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as executor:
                results = list(executor.map(one, range(1, len(job_list) + 1), job_list))
        else:
            results = [one(number, job) for number, job in enumerate(job_list, 1)]
    return _document(harness.chip, environment, results, signing_key)


def _document(
    chip: str, environment: dict[str, Any], results: list[dict[str, Any]], signing_key: Any
) -> dict[str, Any]:
    document = {"schema": RESULTS_SCHEMA, "chip": chip, "environment": environment, "results": results}
    document["signature"] = signing.sign_document(document, signing_key) if signing_key is not None else None
    return document
