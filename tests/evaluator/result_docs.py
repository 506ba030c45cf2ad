"""Honest result documents for a real catalog operator, in the shape the harness writes (kgb.result/1)."""

from __future__ import annotations

import math

from evaluator.harness.backends import Peaks
from evaluator.harness.peaks import floor_seconds
from evaluator.harness.result import jsonable
from evaluator.services.result_checks import catalog_costs
from operators import registry

OPERATOR = "aten::_index_put_impl_"
# the ceilings of tests.factories.ChipFactory, as evaluator.selectors.chip_ceilings reads them
FACTORY_PEAKS = Peaks(3350e9, {"bfloat16": 989e12, "float32": 67e12, "default": 67e12}, 50 * 2**20)
SOL_PCT, SPEEDUP = 41.0, 1.7


def honest_timing(operator: str = OPERATOR, peaks: Peaks = FACTORY_PEAKS) -> list[dict]:
    """Per perf case, the timing of a kernel at SOL_PCT of the case's physical floor on a chip of
    `peaks`, SPEEDUP times faster than its baseline."""
    timings = []
    for cost in catalog_costs(operator, "perf"):
        floor_us = floor_seconds(cost.flops, cost.bytes, cost.dtype, peaks) * 1e6 if cost else None
        median = floor_us * 100 / SOL_PCT if floor_us else 10.0
        timings.append(
            {
                "candidate_median_us": median,
                "baseline_median_us": median * SPEEDUP,
                "speedup": SPEEDUP,
                "floor_us": floor_us,
                "sol_pct": SOL_PCT if floor_us else None,
                "measured_by": "replay",
            }
        )
    return timings


def honest_result(operator: str = OPERATOR, tier: str = "full", *, timed: bool = True, **overrides) -> dict:
    """A correct result: every case of the tier passed; on a timing chip's full tier the perf cases
    follow, marked "tier": "perf", with per-case timing (physically possible on a ChipFactory chip)."""
    spec = registry.get(operator)
    cases = [{"params": jsonable(dict(c)), "passed": True, "max_abs_err": 0.0, "reason": ""} for c in spec.tier(tier)]
    timing = None
    if timed:
        timings = honest_timing(operator)
        for case, case_timing in zip(spec.tier("perf"), timings, strict=True):
            entry = {"params": jsonable(dict(case)), "passed": True, "reason": "", "timing": case_timing}
            if tier == "full":
                entry["tier"] = "perf"
            cases.append(entry)
        median = math.exp(sum(math.log(t["candidate_median_us"]) for t in timings) / len(timings))
        timing = {"speedup": SPEEDUP, "candidate_median_us": median, "baseline_median_us": median * SPEEDUP}
        timing["method"] = "events"
        timing["measured_by"] = "replay"
    result = {
        "schema": "kgb.result/1",
        "verdict": "correct",
        "reason": "all cases passed",
        "operator": operator,
        "tier": tier,
        "seed_kind": "public",
        "seed": 0,
        "cases": cases,
        "timing": timing,
        "sol_pct": SOL_PCT if timed else None,
        "findings": [],
        "environment": {
            "harness_version": "0.1",
            "l2_flush": "write",
            "timing_clock": "events",
            "isolation": {"sandbox": "full", "missing": [], "complete": True, "uid": 61000},
        },
        "stderr_tail": "",
        "duration_s": 3.2,
    }
    result.update(overrides)
    if result["seed_kind"] == "secret" and "seed" not in overrides:
        del result["seed"]  # a held-out run never writes its seed (the contract refuses one)
    return result
