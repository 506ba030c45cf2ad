"""The site's own check of a runner's result against its job, before anything is ranked.

A runner (or an imported bundle) reports a verdict, cases, timing and its sandbox; the site does
not believe them blindly. `problems_with_result` lists every way a result contradicts its job, the
operator catalog, the chip or itself: the case list against the catalog's cases of the tier (count,
order, parameters), the verdict against cases and findings, timing only where the chip times, each
timed case's median above the physics floor the site computes from the chip's ceilings and the
case's cost model, speedup and %SOL consistent with the medians and the floor. A result with
problems is still recorded (its verdict kept for the record) but marked rejected with the reasons
and never ranked (evaluator.models.Evaluation.rejected_reason).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import torch

from evaluator import hidden_cases, selectors
from evaluator.harness.backends import Peaks
from evaluator.harness.contract import CaseEntry, Result
from evaluator.harness.hidden import HIDDEN_PARAMS, HIDDEN_TIER
from evaluator.harness.peaks import floor_seconds
from evaluator.harness.result import jsonable
from evaluator.harness.timing import PHYSICS_MARGIN
from evaluator.models import Chip, EvaluationJob
from evaluator.services import results as _results  # a module reference: results imports this module
from evaluator.vocabulary import Tier, Verdict
from operators import registry
from operators.spec import Cost, OperatorSpec, Rng

# the harness reports as cheating any median under PHYSICS_MARGIN of the chip's floor, so no ranked
# %SOL can exceed 100 / PHYSICS_MARGIN (117.6...)
MAX_SOL_PCT = 100.0 / PHYSICS_MARGIN
# far above any honest speedup over a vendor or torch baseline
MAX_SPEEDUP = 1000.0
# a reported ratio may differ from the one recomputed here by rounding only
RATIO_SLACK = 1.0 + 1e-6
TIMED_TIER = Tier.PERF
ERROR_VERDICTS = frozenset({Verdict.COMPILE_ERROR, Verdict.MISSING_ENTRYPOINT, Verdict.RUNTIME_ERROR, Verdict.TIMEOUT})


def _finite_positive(value: object) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(value) and value > 0
    except OverflowError:
        return False


def _geomean(values: Sequence[float]) -> float | None:
    values = [v for v in values if _finite_positive(v)]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


class _ShapesOnly(Rng):
    """Draws meta tensors: every shape and dtype of a case's inputs, no values and no memory. A cost
    model (or reference) that reads values fails on them, and that case gets no floor here."""

    def __init__(self) -> None:
        super().__init__(0, "cpu")
        self.device = torch.device("meta")


def _tensor_bytes(value: object) -> int:
    if isinstance(value, torch.Tensor):
        return value.numel() * value.element_size()
    if isinstance(value, dict):
        return sum(_tensor_bytes(item) for item in value.values())
    if isinstance(value, list | tuple):
        return sum(_tensor_bytes(item) for item in value)
    return 0


def _shape_cost(spec: OperatorSpec, case: dict) -> Cost | None:
    try:
        inputs = spec.make_inputs(case, _ShapesOnly())
        if spec.cost is not None:
            return spec.cost(case, inputs)
        # the harness's default: bytes of the inputs and of the reference output, no FLOPs
        output = spec.run_reference(dict(inputs))
        return Cost(flops=0.0, bytes=float(_tensor_bytes(inputs) + _tensor_bytes(output)))
    except Exception:  # a cost that depends on values (or an input builder that reads them)
        return None


@functools.lru_cache(maxsize=512)
def catalog_costs(operator_id: str, tier: str) -> tuple[Cost | None, ...]:
    """The cost model of each of the tier's cases (None where it depends on input values); the
    catalog is code, so once per process."""
    spec = registry.get(operator_id)
    return tuple(_shape_cost(spec, dict(case)) for case in spec.tier(tier))


def _chip_peaks(chip: Chip) -> Peaks | None:
    ceilings = selectors.chip_ceilings(chip=chip)
    if not ceilings:
        return None
    return Peaks(float(ceilings["bandwidth_bytes_per_s"]), dict(ceilings["flops_per_s"]), int(ceilings["l2_bytes"]))


def floors_us(*, chip: Chip, operator_id: str, tier: str) -> list[float | None]:
    """The physical floor of each of the tier's cases on `chip`, in µs, from the ceilings the site
    ranks with (None where the chip or the case's cost is unknown)."""
    peaks = _chip_peaks(chip)
    if peaks is None:
        return [None] * len(registry.get(operator_id).tier(tier))
    return [
        floor_seconds(cost.flops, cost.bytes, cost.dtype, peaks) * 1e6 if cost is not None else None
        for cost in catalog_costs(operator_id, tier)
    ]


def _params_problems(entries: Sequence[CaseEntry], catalog: Sequence[dict], label: str) -> list[str]:
    """Each entry's params against the catalog's case at its position (the harness checks a tier's
    cases in order and writes each as result.jsonable does)."""
    problems: list[str] = []
    for index, (entry, case) in enumerate(zip(entries, catalog, strict=False)):  # counts: _count_problems
        expected = jsonable(dict(case))
        if entry.params == expected:
            continue
        missing = sorted(set(expected) - set(entry.params or {}))
        unknown = sorted(set(entry.params or {}) - set(expected))
        if missing or unknown:
            detail = f"keys {', '.join(unknown)} are not the catalog's" if unknown else ""
            detail += ("; " if detail and missing else "") + (f"keys {', '.join(missing)} missing" if missing else "")
        else:
            detail = "values differ from the catalog's"
        problems.append(f"{label} case {index}: params are not the catalog's case {index} ({detail})")
        if len(problems) >= 5:
            problems.append(f"{label}: further params not checked")
            break
    return problems


def _count_problems(
    *,
    job: EvaluationJob,
    result: Result,
    public: list[CaseEntry],
    perf: list[CaseEntry],
    hidden: list[CaseEntry],
    tier_count: int,
    perf_count: int,
) -> list[str]:
    """The case list against the tier's cases from the catalog (and the perf tier's, appended by
    the harness for a full-tier evaluation on a timing chip)."""
    problems: list[str] = []
    verdict = result.verdict
    skipped = result.cases_skipped or 0
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
        if any(entry.params != HIDDEN_PARAMS for entry in hidden):
            problems.append("a hidden case entry describes its case (its params must be exactly {'hidden': true})")
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


def _case_timing_problems(index: int, entry: CaseEntry, floor_us: float | None) -> list[str]:
    """One timed case: positive finite figures, within the bounds, the median above the case's
    physical floor on this chip, speedup and %SOL what the medians and that floor allow."""
    timing = entry.timing
    if timing is None:
        return []
    where = f"case timing {index}"
    problems: list[str] = []
    for name in ("candidate_median_us", "baseline_median_us", "speedup", "sol_pct"):
        value = getattr(timing, name)
        if value is not None and not _finite_positive(value):
            problems.append(f"{where}: {name} must be a finite positive number")
    if problems:
        return problems
    median, baseline = timing.candidate_median_us, timing.baseline_median_us
    if timing.sol_pct is not None and timing.sol_pct > MAX_SOL_PCT:
        problems.append(f"{where}: sol_pct above {MAX_SOL_PCT:.1f}")
    if timing.speedup is not None and timing.speedup > MAX_SPEEDUP:
        problems.append(f"{where}: speedup above {MAX_SPEEDUP:g}")
    if timing.speedup is not None and median is not None and baseline is not None:
        if timing.speedup > baseline / median * RATIO_SLACK:
            problems.append(
                f"{where}: speedup {timing.speedup:g} is more than its medians give ({baseline:g} / {median:g} µs)"
            )
    if floor_us is not None and median is not None:
        if median < PHYSICS_MARGIN * floor_us:
            problems.append(
                f"{where}: a median of {median:g} µs is below the case's physical floor on this chip "
                f"({floor_us:.4g} µs, from the chip's ceilings and the case's cost model): impossible"
            )
        # the runner's ceilings may be tighter than the site's by the harness's own margin, no more
        elif timing.sol_pct is not None and timing.sol_pct > 100.0 * floor_us / median / PHYSICS_MARGIN * RATIO_SLACK:
            problems.append(
                f"{where}: sol_pct {timing.sol_pct:g} is above what its median allows on this chip "
                f"({100.0 * floor_us / median:.3g}% of a {floor_us:.4g} µs floor)"
            )
    elif median is not None and timing.sol_pct is not None and timing.floor_us is not None:
        if timing.sol_pct > 100.0 * timing.floor_us / median * RATIO_SLACK:
            problems.append(f"{where}: sol_pct {timing.sol_pct:g} is more than its own floor and median give")
    return problems


def _timing_problems(*, job: EvaluationJob, result: Result, timed: list[CaseEntry], perf_count: int) -> list[str]:
    problems: list[str] = []
    timing, sol_pct = result.timing, result.sol_pct
    case_timings = [entry for entry in result.cases if entry.timing is not None]
    if timing is None and sol_pct is None and not case_timings:
        return problems
    perf = [entry for entry in result.cases if entry.tier == TIMED_TIER and not entry.hidden]
    timed_tier = job.tier == TIMED_TIER or (job.tier == Tier.FULL and len(perf) == perf_count > 0)
    if not job.chip.timing_meaningful:
        return [f"timing reported on {job.chip.slug}, a chip whose timings mean nothing"]
    if not timed_tier:
        return [f"timing reported on the untimed {job.tier} tier"]
    if not _results.is_ranked_protocol(result.environment.to_dict()):
        problems.append("timed under another protocol than the ranked one")
    # a timing the candidate's own process measured is shown, never ranked: only the replayer's
    # (a process that never ran candidate code) is a measurement from outside
    if (timing is not None and timing.measured_by != "replay") or any(
        entry.timing.measured_by != "replay" for entry in case_timings
    ):
        problems.append("timed in the candidate's own process, not by the launch replay (timing.measured_by)")
    if timing is not None:
        if not _finite_positive(timing.speedup):
            problems.append(f"timing.speedup must be a finite positive number, got {timing.speedup!r}")
        elif timing.speedup > MAX_SPEEDUP:
            problems.append(f"speedup {timing.speedup:g} is above the bound {MAX_SPEEDUP:g}")
    if sol_pct is not None:
        if not _finite_positive(sol_pct):
            problems.append(f"sol_pct must be a finite positive number, got {sol_pct!r}")
        elif sol_pct > MAX_SOL_PCT:
            problems.append(
                f"sol_pct {sol_pct:g} is above {MAX_SOL_PCT:.1f}: faster than {PHYSICS_MARGIN:.0%} of the chip's floor"
            )
    if problems:
        return problems
    untimed = len(case_timings) - sum(1 for entry in timed if entry.timing is not None)
    if untimed:
        problems.append(f"{untimed} case entries of an untimed tier carry timing")
    # each timed case against its physical floor here; the summary no more than its cases give
    floors = floors_us(chip=job.chip, operator_id=job.attempt.operator_id, tier=TIMED_TIER)
    for index, entry in enumerate(timed):
        problems += _case_timing_problems(index, entry, floors[index] if index < len(floors) else None)
    speedups = [entry.timing.speedup for entry in timed if entry.timing is not None]
    sols = [entry.timing.sol_pct for entry in timed if entry.timing is not None]
    if timing is not None and speedups:
        bound = _geomean(speedups)
        if bound is None or timing.speedup > bound * RATIO_SLACK:
            problems.append(f"timing.speedup {timing.speedup:g} is more than the geometric mean of its cases' speedups")
    if sol_pct is not None and sols:
        bound = _geomean(sols)
        if bound is None or sol_pct > bound * RATIO_SLACK:
            problems.append(f"sol_pct {sol_pct:g} is more than the geometric mean of its cases' %SOL")
    if (timing is not None or sol_pct is not None) and not any(entry.timing is not None for entry in timed):
        problems.append("a timing summary without a timed case")
    return problems


def problems_with_result(*, job: EvaluationJob, result: Result | dict) -> list[str]:
    """Every way `result` (a Result, or a document read as one) contradicts its job; empty when it
    may be ranked. A document off the contract raises MalformedResult."""
    result = _results.as_result(result)
    try:
        spec = registry.get(job.attempt.operator_id)
    except registry.UnknownOperator:
        return [f"operator {job.attempt.operator_id} is not in the operator catalog"]
    catalog, perf_catalog = spec.tier(job.tier), spec.tier(TIMED_TIER)
    tier_count, perf_count = len(catalog), len(perf_catalog)

    cases = result.cases
    problems = [
        f"case {index} must have params (an object) and passed (true or false)"
        for index, case in enumerate(cases)
        if case.params is None or case.passed is None
    ]
    if problems:
        return problems
    hidden = [case for case in cases if case.hidden is True]
    perf = [case for case in cases if case.hidden is not True and case.tier == TIMED_TIER]
    public = [case for case in cases if case.hidden is not True and case.tier is None]
    if len(hidden) + len(perf) + len(public) != len(cases):
        problems.append("case entries must carry no tier, or tier 'perf' after a full tier")
    problems += _count_problems(
        job=job, result=result, public=public, perf=perf, hidden=hidden, tier_count=tier_count, perf_count=perf_count
    )
    problems += _params_problems(public, catalog, job.tier)
    problems += _params_problems(perf, perf_catalog, TIMED_TIER)

    failed = [case for case in cases if case.passed is False]
    if result.verdict == Verdict.CORRECT and failed:
        problems.append(f"verdict correct with {len(failed)} failed case(s)")
    if result.verdict == Verdict.CORRECT and result.findings:
        problems.append(f"verdict correct with {len(result.findings)} finding(s)")
    if result.verdict == Verdict.INCORRECT and not failed:
        problems.append("verdict incorrect without a failed case")
    if result.verdict == Verdict.CHEAT_DETECTED and not result.findings:
        problems.append("verdict cheat_detected without a finding")

    timed = public if job.tier == TIMED_TIER else perf
    problems += _timing_problems(job=job, result=result, timed=timed, perf_count=perf_count)

    isolation = result.environment.isolation
    if isolation is None or isolation.complete is not True:
        problems.append("the harness's isolation was not complete (environment.isolation.complete is not true)")
    return problems
