"""The leaderboard's arithmetic: pure functions, no Django, unit-tested in tests/leaderboard/test_metrics.py.

Definitions follow the upstream KernelGenBench paper's evaluation section:
- accuracy: share of operators for which at least one sample passed every case (and the anti-cheat layers);
- speedup: two-level geometric mean, first over one operator's cases (the harness reports each operator's
  case-geomean), then over the *correct* operators (failing operators are excluded, the paper's
  "survivorship bias" — shown next to accuracy for that reason); summed as logs in Totals, so rows add up;
- fast_p: share of operators that are correct AND at least p times as fast as the baseline (KernelBench);
- pass@k: the unbiased estimator 1 - C(n-c, k) / C(n, k) of Chen et al. (2021), averaged over operators;
- tokens per success: total tokens / number of correct operators.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one problem with n samples of which c are correct (Chen et al. 2021).

    Computed as a running product to stay exact-ish for large n. When fewer than k samples exist
    (n < k), pass@k is not defined; we return the empirical success of the n samples (c > 0), which is
    what pass@n measures — callers display n so the reader can tell.
    """
    if n < 0 or c < 0 or c > n or k < 1:
        raise ValueError(f"invalid pass@k arguments n={n} c={c} k={k}")
    if n == 0:
        return 0.0
    if n < k:
        return 1.0 if c > 0 else 0.0
    if n - c < k:
        return 1.0
    prob_all_fail = 1.0
    for i in range(n - c + 1, n + 1):
        prob_all_fail *= 1.0 - k / i
    return 1.0 - prob_all_fail


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or not denominator:
        return None
    return numerator / denominator


def cost_usd(
    *,
    prompt_tokens: int,
    completion_tokens: int,
    cached_tokens: int,
    price_input_per_mtok: float | None,
    price_output_per_mtok: float | None,
    price_cached_input_per_mtok: float | None = None,
) -> float | None:
    """Dollar cost at the model's list prices. `cached_tokens` are the part of prompt_tokens read from cache
    (billed at the cached price when one is known, else at the input price). None when prices are unknown."""
    if price_input_per_mtok is None or price_output_per_mtok is None:
        return None
    cached = min(cached_tokens, prompt_tokens)
    cached_price = price_input_per_mtok if price_cached_input_per_mtok is None else price_cached_input_per_mtok
    dollars = (prompt_tokens - cached) * price_input_per_mtok + cached * cached_price
    dollars += completion_tokens * price_output_per_mtok
    return dollars / 1_000_000


def is_preliminary(operators_evaluated: int, minimum: int) -> bool:
    """A row with fewer evaluated operators than the minimum is shown but marked preliminary (and not ranked)."""
    return operators_evaluated < minimum


def preliminary_minimum(*, catalog_minimum: int, catalog_operators: int, set_operators: int) -> int:
    """The fewest evaluated operators a row of a view over one operator set needs to be ranked: the catalog-wide
    minimum (KGB_PRELIMINARY_MIN_OPERATORS, for a view of every operator) as the same fraction of the set's operators,
    rounded up, at least 1 and never more than the set has. With the 210-operator catalog and a minimum of 10: 10 for
    all sources, 6 for ATen (110), 3 for vLLM (50) or cuBLAS (50). Without catalog figures: the minimum itself."""
    if catalog_operators <= 0 or set_operators <= 0:
        return catalog_minimum
    scaled = math.ceil(catalog_minimum * min(set_operators, catalog_operators) / catalog_operators)
    return max(1, min(set_operators, scaled))


def competition_ranks(values: list) -> list[int]:
    """Ranks of values already in display order, equal values sharing a rank ("1, 2, 2, 4")."""
    ranks: list[int] = []
    for position, value in enumerate(values, start=1):
        ranks.append(ranks[-1] if ranks and value == values[position - 2] else position)
    return ranks


@dataclass(frozen=True)
class ParetoPoint:
    key: str
    cost: float  # lower is better (e.g. tokens per success)
    score: float  # higher is better (e.g. accuracy)


def pareto_front(points: Iterable[ParetoPoint]) -> list[ParetoPoint]:
    """Points not dominated by any other (another point with cost <= and score >=, one of them strict).

    Exact ties both stay on the front. Returned in increasing cost, for drawing the front as a step line.
    """
    points = [p for p in points if math.isfinite(p.cost) and math.isfinite(p.score)]
    front = []
    for p in points:
        dominated = any(
            (q.cost <= p.cost and q.score >= p.score) and (q.cost < p.cost or q.score > p.score) for q in points
        )
        if not dominated:
            front.append(p)
    return sorted(front, key=lambda p: (p.cost, -p.score, p.key))


@dataclass(frozen=True)
class OperatorOutcome:
    """One operator of one submission on one chip, reduced over its samples and evaluations."""

    samples: int  # samples evaluated
    samples_correct: int
    compiled: bool  # at least one sample compiled and reached its entrypoints
    correct: bool  # at least one sample correct
    best_speedup: float | None  # best per-operator (case-geomean) speedup among correct samples
    best_sol_pct: float | None
    held_out: bool  # every counted evaluation used secret seeds
    hidden_cases_passed: int = 0  # the most hidden cases (held-out runs) one of its samples passed


@dataclass(frozen=True)
class Totals:
    """Sums over operators, stored per (submission, chip, operator set) in LeaderboardEntry."""

    operators_attempted: int = 0
    operators_evaluated: int = 0
    operators_compiled: int = 0
    operators_correct: int = 0
    operators_fast1: int = 0
    operators_held_out: int = 0
    hidden_cases_passed: int = 0
    samples: int = 0
    samples_correct: int = 0
    speedup_log_sum: float = 0.0
    speedup_count: int = 0
    sol_sum: float = 0.0
    sol_count: int = 0
    pass1_sum: float = 0.0
    pass5_sum: float = 0.0
    pass10_sum: float = 0.0
    max_samples: int = 0


def totals_from_outcomes(outcomes: Iterable[OperatorOutcome], *, operators_attempted: int) -> Totals:
    outcomes = list(outcomes)
    speedups = [o.best_speedup for o in outcomes if o.correct and o.best_speedup and o.best_speedup > 0]
    sols = [o.best_sol_pct for o in outcomes if o.correct and o.best_sol_pct is not None]
    return Totals(
        operators_attempted=operators_attempted,
        operators_evaluated=len(outcomes),
        operators_compiled=sum(o.compiled for o in outcomes),
        operators_correct=sum(o.correct for o in outcomes),
        operators_fast1=sum(1 for o in outcomes if o.correct and o.best_speedup is not None and o.best_speedup >= 1.0),
        operators_held_out=sum(o.held_out for o in outcomes),
        hidden_cases_passed=sum(o.hidden_cases_passed for o in outcomes),
        samples=sum(o.samples for o in outcomes),
        samples_correct=sum(o.samples_correct for o in outcomes),
        speedup_log_sum=sum(math.log(s) for s in speedups),
        speedup_count=len(speedups),
        sol_sum=sum(sols),
        sol_count=len(sols),
        pass1_sum=sum(pass_at_k(o.samples, o.samples_correct, 1) for o in outcomes),
        pass5_sum=sum(pass_at_k(o.samples, o.samples_correct, 5) for o in outcomes),
        pass10_sum=sum(pass_at_k(o.samples, o.samples_correct, 10) for o in outcomes),
        max_samples=max((o.samples for o in outcomes), default=0),
    )


@dataclass(frozen=True)
class RowMetrics:
    operators_attempted: int
    operators_evaluated: int
    compiled_pct: float | None
    accuracy_pct: float | None
    fast1_pct: float | None
    speedup: float | None
    mean_sol_pct: float | None
    pass_at: dict[int, float | None]
    samples: int
    max_samples: int
    held_out: bool
    hidden_cases_passed: int


def row_metrics(totals: Totals) -> RowMetrics:
    """Turn additive totals into the displayed percentages (over evaluated operators)."""
    evaluated = totals.operators_evaluated

    def pct(count: int) -> float | None:
        return 100.0 * count / evaluated if evaluated else None

    pass_at: dict[int, float | None] = {}
    for k, total in ((1, totals.pass1_sum), (5, totals.pass5_sum), (10, totals.pass10_sum)):
        # pass@k is only shown when operators had at least k samples; otherwise it would just repeat pass@n
        pass_at[k] = 100.0 * total / evaluated if evaluated and totals.max_samples >= k else None
    return RowMetrics(
        operators_attempted=totals.operators_attempted,
        operators_evaluated=evaluated,
        compiled_pct=pct(totals.operators_compiled),
        accuracy_pct=pct(totals.operators_correct),
        fast1_pct=pct(totals.operators_fast1),
        speedup=math.exp(totals.speedup_log_sum / totals.speedup_count) if totals.speedup_count else None,
        mean_sol_pct=totals.sol_sum / totals.sol_count if totals.sol_count else None,
        pass_at=pass_at,
        samples=totals.samples,
        max_samples=totals.max_samples,
        held_out=evaluated > 0 and totals.operators_held_out == evaluated,
        hidden_cases_passed=totals.hidden_cases_passed,
    )


def held_out_label(held_out: bool, hidden_cases_passed: int) -> str:
    """What the held-out badge says of a row or an evaluation ("" when it is not held-out)."""
    if not held_out:
        return ""
    if not hidden_cases_passed:
        return "held-out verified (secret seed)"
    shapes = "hidden shape" if hidden_cases_passed == 1 else "hidden shapes"
    return f"held-out verified (secret seed + {hidden_cases_passed} {shapes})"


def drop(reference: float | None, value: float | None) -> float | None:
    """value - reference (e.g. accuracy points lost from NVIDIA to another chip); None when either is missing."""
    if reference is None or value is None:
        return None
    return value - reference
