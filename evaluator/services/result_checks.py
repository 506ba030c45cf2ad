"""The site's own check of a runner's result against its job, before anything is ranked.

A runner (or an imported bundle) reports a verdict, cases, timing and its sandbox; the site does
not believe them blindly. `problems_with_result` lists every way a result contradicts its job, the
operator catalog, the chip or itself; a result with problems is still recorded (its verdict kept for
the record) but marked rejected with the reasons and never ranked (evaluator.models.Evaluation.rejected_reason).
"""

from __future__ import annotations

import math

from evaluator import hidden_cases
from evaluator.harness.hidden import HIDDEN_TIER
from evaluator.harness.timing import PHYSICS_MARGIN
from evaluator.models import EvaluationJob
from evaluator.services import results as _results  # a module reference: results imports this module
from evaluator.vocabulary import Tier, Verdict
from operators import registry

# the harness reports as cheating any median under PHYSICS_MARGIN of the chip's floor, so no ranked
# %SOL can exceed 100 / PHYSICS_MARGIN (117.6...)
MAX_SOL_PCT = 100.0 / PHYSICS_MARGIN
# far above any honest speedup over a vendor or torch baseline
MAX_SPEEDUP = 1000.0
TIMED_TIER = Tier.PERF
ERROR_VERDICTS = frozenset({Verdict.COMPILE_ERROR, Verdict.MISSING_ENTRYPOINT, Verdict.RUNTIME_ERROR, Verdict.TIMEOUT})


def _finite_positive(value: object) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(value) and value > 0
    except OverflowError:
        return False


def _count_problems(
    *, job: EvaluationJob, result: dict, public: list, perf: list, hidden: list, tier_count: int, perf_count: int
) -> list[str]:
    """The case list against the tier's cases from the catalog (and the perf tier's, appended by
    the harness for a full-tier evaluation on a timing chip)."""
    problems: list[str] = []
    verdict = result.get("verdict")
    skipped = result.get("cases_skipped") or 0
    if isinstance(skipped, bool) or not isinstance(skipped, int) or skipped < 0:
        return [f"cases_skipped must be a non-negative integer, got {skipped!r}"]
    if skipped and verdict != Verdict.INCORRECT:
        problems.append(f"cases_skipped ({skipped}) is only possible on an incorrect verdict (fail-fast)")
    perf_allowed = job.tier == Tier.FULL and job.chip.timing_meaningful and perf_count > 0
    if perf and not perf_allowed:
        problems.append(f"{len(perf)} perf-tier case entries on a job that is not a full-tier job on a timing chip")
    if perf and len(public) != tier_count:
        problems.append(f"perf-tier cases after {len(public)} of the tier's {tier_count} cases")
    if hidden and (len(public) != tier_count or (perf_allowed and perf and len(perf) != perf_count)):
        problems.append("hidden cases reported before the public cases were all checked")
    if verdict == Verdict.CORRECT:
        if len(public) != tier_count:
            problems.append(f"{len(public)} case entries; the {job.tier} tier has {tier_count} cases")
        if perf and len(perf) != perf_count:
            problems.append(f"{len(perf)} perf-tier case entries; the perf tier has {perf_count} cases")
    elif verdict == Verdict.INCORRECT:
        if hidden:
            consistent = True  # skipped hidden cases are bounded by the number sent (below)
        elif perf:
            consistent = len(perf) + skipped == perf_count
        else:
            consistent = len(public) + skipped == tier_count
        if not consistent:
            problems.append(
                f"{len(public)} case entries, {len(perf)} perf-tier entries and {skipped} skipped do not add up to "
                f"the {job.tier} tier's {tier_count} cases" + (f" and the perf tier's {perf_count}" if perf else "")
            )
    else:  # stopped early: at most the tier's cases
        if len(public) > tier_count:
            problems.append(f"{len(public)} case entries; the {job.tier} tier has only {tier_count} cases")
        if len(perf) > perf_count:
            problems.append(f"{len(perf)} perf-tier case entries; the perf tier has only {perf_count} cases")
    if hidden:
        if not job.held_out or job.tier != HIDDEN_TIER:
            problems.append(f"{len(hidden)} hidden case entries on a job that was sent no hidden cases")
        else:
            try:
                sent = len(hidden_cases.cases_for(job.attempt.operator_id))
            except hidden_cases.HiddenCasesFileError as exc:
                problems.append(f"the hidden cases sent cannot be counted: {exc}")
            else:
                if len(hidden) + (skipped if verdict == Verdict.INCORRECT else 0) > sent:
                    problems.append(f"{len(hidden)} hidden case entries; the job was sent {sent}")
    return problems


def _timing_problems(*, job: EvaluationJob, result: dict, cases: list, perf: list, perf_count: int) -> list[str]:
    problems: list[str] = []
    timing, sol_pct = result.get("timing"), result.get("sol_pct")
    case_timings = [case["timing"] for case in cases if case.get("timing") is not None]
    if timing is None and sol_pct is None and not case_timings:
        return problems
    timed_tier = job.tier == TIMED_TIER or (job.tier == Tier.FULL and len(perf) == perf_count > 0)
    if not job.chip.timing_meaningful:
        return [f"timing reported on {job.chip.slug}, a chip whose timings mean nothing"]
    if not timed_tier:
        return [f"timing reported on the untimed {job.tier} tier"]
    if not _results.is_ranked_protocol(result.get("environment") or {}):
        problems.append("timed under another protocol than the ranked one")
    if timing is not None:
        if not isinstance(timing, dict):
            return [*problems, "timing must be an object"]
        speedup = timing.get("speedup")
        if not _finite_positive(speedup):
            problems.append(f"timing.speedup must be a finite positive number, got {speedup!r}")
        elif speedup > MAX_SPEEDUP:
            problems.append(f"speedup {speedup:g} is above the bound {MAX_SPEEDUP:g}")
    if sol_pct is not None:
        if not _finite_positive(sol_pct):
            problems.append(f"sol_pct must be a finite positive number, got {sol_pct!r}")
        elif sol_pct > MAX_SOL_PCT:
            problems.append(
                f"sol_pct {sol_pct:g} is above {MAX_SOL_PCT:.1f}: faster than {PHYSICS_MARGIN:.0%} of the chip's floor"
            )
    for index, case_timing in enumerate(case_timings):
        if not isinstance(case_timing, dict):
            problems.append(f"case timing {index} must be an object")
            continue
        for name in ("candidate_median_us", "baseline_median_us"):
            if name in case_timing and not _finite_positive(case_timing[name]):
                problems.append(f"case timing {index}: {name} must be a finite positive number")
        for name in ("speedup", "sol_pct"):
            value = case_timing.get(name)
            if value is not None and not _finite_positive(value):
                problems.append(f"case timing {index}: {name} must be a finite positive number")
        if _finite_positive(case_timing.get("sol_pct")) and case_timing["sol_pct"] > MAX_SOL_PCT:
            problems.append(f"case timing {index}: sol_pct above {MAX_SOL_PCT:.1f}")
        if _finite_positive(case_timing.get("speedup")) and case_timing["speedup"] > MAX_SPEEDUP:
            problems.append(f"case timing {index}: speedup above {MAX_SPEEDUP:g}")
    return problems


def problems_with_result(*, job: EvaluationJob, result: dict) -> list[str]:
    """Every way `result` (validated by evaluator.serializers.validate_result) contradicts its job;
    empty when it may be ranked."""
    problems: list[str] = []
    verdict = result.get("verdict")
    if verdict not in Verdict.values:
        return [f"verdict {verdict!r} is not one of the harness's verdicts"]
    try:
        spec = registry.get(job.attempt.operator_id)
    except registry.UnknownOperator:
        return [f"operator {job.attempt.operator_id} is not in the operator catalog"]
    tier_count, perf_count = len(spec.tier(job.tier)), len(spec.tier(TIMED_TIER))

    cases = result.get("cases") or []
    for index, case in enumerate(cases):
        if not isinstance(case.get("params"), dict) or not isinstance(case.get("passed"), bool):
            problems.append(f"case {index} must have params (an object) and passed (true or false)")
    if problems:
        return problems
    hidden = [case for case in cases if case.get("hidden") is True]
    perf = [case for case in cases if case.get("hidden") is not True and case.get("tier") == TIMED_TIER]
    public = [case for case in cases if case.get("hidden") is not True and case.get("tier") is None]
    if len(hidden) + len(perf) + len(public) != len(cases):
        problems.append("case entries must carry no tier, or tier 'perf' after a full tier")
    problems += _count_problems(
        job=job, result=result, public=public, perf=perf, hidden=hidden, tier_count=tier_count, perf_count=perf_count
    )

    findings = result.get("findings") or []
    failed = [case for case in cases if case["passed"] is False]
    if verdict == Verdict.CORRECT and failed:
        problems.append(f"verdict correct with {len(failed)} failed case(s)")
    if verdict == Verdict.CORRECT and findings:
        problems.append(f"verdict correct with {len(findings)} finding(s)")
    if verdict == Verdict.INCORRECT and not failed:
        problems.append("verdict incorrect without a failed case")
    if verdict == Verdict.CHEAT_DETECTED and not findings:
        problems.append("verdict cheat_detected without a finding")

    problems += _timing_problems(job=job, result=result, cases=cases, perf=perf, perf_count=perf_count)

    isolation = (result.get("environment") or {}).get("isolation")
    if not isinstance(isolation, dict) or isolation.get("complete") is not True:
        problems.append("the harness's isolation was not complete (environment.isolation.complete is not true)")
    return problems
