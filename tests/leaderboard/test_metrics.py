"""The leaderboard's arithmetic against hand-computed values."""

from __future__ import annotations

import math
from itertools import combinations

import pytest

from leaderboard import metrics


def _speedup(*best_speedups: float | None) -> float | None:
    """The row speedup of correct operators with these per-operator (case-geomean) speedups."""
    outcomes = [_outcome(True, speedup) for speedup in best_speedups]
    return metrics.row_metrics(metrics.totals_from_outcomes(outcomes, operators_attempted=len(outcomes))).speedup


def test_the_row_speedup_is_the_geometric_mean_over_operators():
    assert _speedup(1.0, 4.0) == pytest.approx(2.0)
    assert _speedup(2.0, 8.0, 4.0) == pytest.approx(4.0)


def test_the_row_speedup_drops_missing_and_nonpositive_timings():
    assert _speedup(0.0, -1.0, None, 9.0, 1.0) == pytest.approx(3.0)
    assert _speedup() is None
    assert _speedup(0.0) is None


def test_the_row_speedup_weighs_operators_equally_whatever_their_case_count():
    # operator A: 4 cases all at 4x (its case-geomean, from the harness, is 4); operator B: 1 case at 1x. A flat
    # geomean over the 5 cases would give 4^(4/5) = 3.03; the two-level mean is sqrt(4 * 1) = 2.
    assert _speedup(4.0, 1.0) == pytest.approx(2.0)
    assert _speedup(math.sqrt(2.0 * 8.0), math.sqrt(9.0 * 1.0)) == pytest.approx(math.sqrt(4.0 * 3.0))


def _pass_at_k_by_enumeration(n: int, c: int, k: int) -> float:
    """Probability that a random k-subset of n samples (c correct) holds a correct one, by counting subsets."""
    samples = [True] * c + [False] * (n - c)
    subsets = list(combinations(range(n), k))
    return sum(any(samples[i] for i in s) for s in subsets) / len(subsets)


@pytest.mark.parametrize(
    ("n", "c", "k"), [(5, 1, 1), (5, 2, 2), (10, 3, 5), (6, 0, 3), (6, 6, 2), (7, 4, 5), (10, 1, 10)]
)
def test_pass_at_k_matches_subset_enumeration(n, c, k):
    assert metrics.pass_at_k(n, c, k) == pytest.approx(_pass_at_k_by_enumeration(n, c, k))


def test_pass_at_k_known_values():
    assert metrics.pass_at_k(10, 1, 1) == pytest.approx(0.1)
    assert metrics.pass_at_k(10, 5, 1) == pytest.approx(0.5)
    # 1 - C(8,2)/C(10,2) = 1 - 28/45
    assert metrics.pass_at_k(10, 2, 2) == pytest.approx(17 / 45)
    assert metrics.pass_at_k(5, 3, 3) == pytest.approx(1.0)  # n - c < k: every k-subset holds a correct sample


def test_pass_at_k_with_fewer_samples_than_k_is_the_empirical_any_pass():
    assert metrics.pass_at_k(1, 1, 5) == 1.0
    assert metrics.pass_at_k(3, 0, 5) == 0.0


@pytest.mark.parametrize(("n", "c", "k"), [(3, 4, 1), (-1, 0, 1), (3, 1, 0)])
def test_pass_at_k_rejects_impossible_counts(n, c, k):
    with pytest.raises(ValueError):
        metrics.pass_at_k(n, c, k)


def test_pass_at_k_of_a_row_averages_over_operators():
    outcomes = [_outcome(True, samples=2, samples_correct=1), _outcome(False, samples=2, samples_correct=0)]
    row = metrics.row_metrics(metrics.totals_from_outcomes(outcomes, operators_attempted=2))
    assert row.pass_at[1] == pytest.approx(100 * 0.25)
    assert metrics.row_metrics(metrics.totals_from_outcomes([], operators_attempted=0)).pass_at[1] is None


def test_fast1_needs_correct_and_at_least_as_fast_as_the_baseline():
    outcomes = [
        _outcome(True, 1.5),
        _outcome(True, 0.9),
        _outcome(False, 3.0),
        _outcome(True, None),
        _outcome(True, 1.0),
    ]
    row = metrics.row_metrics(metrics.totals_from_outcomes(outcomes, operators_attempted=5))
    assert row.fast1_pct == pytest.approx(100 * 2 / 5)
    assert metrics.row_metrics(metrics.totals_from_outcomes([], operators_attempted=0)).fast1_pct is None


def test_pareto_front_keeps_only_undominated_points_and_both_exact_ties():
    points = [
        metrics.ParetoPoint("cheap-weak", 1.0, 20.0),
        metrics.ParetoPoint("mid", 2.0, 50.0),
        metrics.ParetoPoint("dominated", 3.0, 40.0),  # costs more than "mid" and scores less
        metrics.ParetoPoint("expensive-strong", 5.0, 90.0),
        metrics.ParetoPoint("tie", 2.0, 50.0),
        metrics.ParetoPoint("same-cost-worse", 5.0, 80.0),
    ]
    front = metrics.pareto_front(points)
    assert [p.key for p in front] == ["cheap-weak", "mid", "tie", "expensive-strong"]


def test_pareto_front_ignores_non_finite_points():
    front = metrics.pareto_front([metrics.ParetoPoint("inf", math.inf, 99.0), metrics.ParetoPoint("a", 1.0, 1.0)])
    assert [p.key for p in front] == ["a"]


def test_preliminary_below_the_minimum_of_evaluated_operators():
    assert metrics.is_preliminary(9, 10)
    assert not metrics.is_preliminary(10, 10)


def test_cost_bills_cached_prompt_tokens_at_the_cached_price():
    cost = metrics.cost_usd(
        prompt_tokens=1_000_000,
        completion_tokens=100_000,
        cached_tokens=600_000,
        price_input_per_mtok=3.0,
        price_output_per_mtok=15.0,
        price_cached_input_per_mtok=0.3,
    )
    assert cost == pytest.approx(0.4 * 3.0 + 0.6 * 0.3 + 0.1 * 15.0)
    assert (
        metrics.cost_usd(
            prompt_tokens=1, completion_tokens=1, cached_tokens=0, price_input_per_mtok=None, price_output_per_mtok=1.0
        )
        is None
    )


def _outcome(
    correct: bool,
    speedup: float | None = None,
    samples: int = 1,
    samples_correct: int | None = None,
    compiled: bool = True,
    sol: float | None = None,
    held_out: bool = False,
) -> metrics.OperatorOutcome:
    return metrics.OperatorOutcome(
        samples=samples,
        samples_correct=int(correct) if samples_correct is None else samples_correct,
        compiled=compiled,
        correct=correct,
        best_speedup=speedup,
        best_sol_pct=sol,
        held_out=held_out,
    )


def test_row_metrics_from_outcomes():
    outcomes = [
        _outcome(True, 2.0, sol=40.0),
        _outcome(True, 0.5, sol=20.0),
        _outcome(False, None),
        _outcome(False, None, compiled=False),
    ]
    row = metrics.row_metrics(metrics.totals_from_outcomes(outcomes, operators_attempted=5))
    assert row.operators_attempted == 5
    assert row.operators_evaluated == 4
    assert row.accuracy_pct == pytest.approx(50.0)
    assert row.compiled_pct == pytest.approx(75.0)
    assert row.fast1_pct == pytest.approx(25.0)
    assert row.speedup == pytest.approx(1.0)  # geomean(2, 0.5): the failing operators are excluded
    assert row.mean_sol_pct == pytest.approx(30.0)
    assert row.pass_at[5] is None  # one sample per operator: pass@5 is not defined
    assert not row.held_out


def test_a_set_of_several_samples_per_operator():
    a = [_outcome(True, 4.0, samples=5, samples_correct=2), _outcome(False, samples=5, samples_correct=0)]
    b = [_outcome(True, 1.0, samples=5, samples_correct=5, held_out=True)]
    row = metrics.row_metrics(metrics.totals_from_outcomes(a + b, operators_attempted=3))
    assert row.speedup == pytest.approx(2.0)
    assert row.pass_at[1] == pytest.approx(100 * (0.4 + 0.0 + 1.0) / 3)
    assert row.pass_at[5] == pytest.approx(100 * 2 / 3)


def test_held_out_only_when_every_evaluated_operator_was():
    all_held = metrics.row_metrics(metrics.totals_from_outcomes([_outcome(True, held_out=True)], operators_attempted=1))
    mixed = metrics.row_metrics(
        metrics.totals_from_outcomes([_outcome(True, held_out=True), _outcome(True)], operators_attempted=2)
    )
    assert all_held.held_out and not mixed.held_out
