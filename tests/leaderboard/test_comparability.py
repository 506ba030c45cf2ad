"""Issue 21 items 1 and 7 at the selector level: a rank exists only among comparable rows (same chip, tier, timing
protocol and prompt set, complete submissions), the default view opens on the flagship chip, and the preliminary
threshold scales with the operator set of the view."""

from __future__ import annotations

import pytest

from evaluator.models import JobState
from leaderboard import metrics, selectors, services
from leaderboard.models import LeaderboardEntry
from leaderboard.selectors import LeaderboardFilters
from tests.factories import ChipFactory, EvaluationJobFactory, OperatorFactory, SubmissionFactory
from tests.leaderboard.conftest import Board, evaluate

pytestmark = pytest.mark.django_db


def rows(**filters):
    return selectors.leaderboard_rows(filters=LeaderboardFilters(**filters))


def row_of(result, name, chip=None):
    return next(r for r in result if r.name == name and (chip is None or r.chip == chip))


def entry(submission, chip, operator_set="all") -> LeaderboardEntry:
    return LeaderboardEntry.objects.get(submission=submission, chip=chip, operator_set=operator_set)


@pytest.fixture
def cpu_smoke(board: Board):
    """A perfect run on the CPU interpreter's smoke tier: 3 of 3 correct, more accurate than anything on the H200."""
    submission = SubmissionFactory(name="cpu smoke", target_chip=board.cpu, status="complete")
    for key in ("a1", "a2", "a3"):
        evaluate(submission, board.ops[key], board.cpu, speedup=None, job__tier="smoke")
    services.refresh_leaderboard_entries(submission_id=submission.pk)
    return submission


@pytest.fixture
def evaluating(board: Board):
    """An H200 run still evaluating: 3 operators correct so far (100%), 2 jobs still queued."""
    submission = SubmissionFactory(name="half done", target_chip=board.h200, status="evaluating")
    for key in ("a1", "a2", "a3"):
        evaluate(submission, board.ops[key], board.h200, speedup=3.0)
    for key in ("v1", "c1"):
        EvaluationJobFactory(attempt__submission=submission, attempt__operator=board.ops[key], state=JobState.QUEUED)
    services.refresh_leaderboard_entries(submission_id=submission.pk)
    return submission


def test_the_refresh_records_each_rows_tier_and_timing_protocol(board, cpu_smoke):
    assert (entry(board.main, board.h200).tier, entry(board.main, board.h200).timing_protocol) == (
        "full",
        "write:events",
    )
    assert (entry(cpu_smoke, board.cpu).tier, entry(cpu_smoke, board.cpu).timing_protocol) == ("smoke", "untimed")


def test_a_submission_with_only_queued_jobs_has_their_tier(board):
    submission = SubmissionFactory(name="queued", target_chip=board.h200, status="evaluating")
    EvaluationJobFactory(attempt__submission=submission, attempt__operator=board.ops["a1"], tier="smoke")
    services.refresh_leaderboard_entries(submission_id=submission.pk)
    assert entry(submission, board.h200).tier == "smoke"


def test_ranks_never_compare_rows_of_different_chips(board, cpu_smoke):
    result = rows()  # every chip
    cpu = row_of(result, "cpu smoke")
    main = row_of(result, "main run")
    assert cpu.accuracy_pct == 100.0 and main.accuracy_pct == 60.0
    # each is first among its own: the CPU's 100% on 2-case smoke tiers is not ranked above the H200's full tier
    assert (cpu.rank, main.rank) == (1, 1)
    assert cpu.cohort_key == ("cpu", "smoke", "untimed", "kgb/1")
    assert main.cohort_key == ("h200", "full", "write:events", "kgb/1")
    # rows are grouped by cohort, the flagship's first; within a cohort, ranks follow the order
    chips = [r.chip for r in result]
    assert chips == sorted(chips, key=["h200", "mi300x", "cpu"].index)
    for cohort in {r.cohort_key for r in result}:
        ranks = [r.rank for r in result if r.cohort_key == cohort and r.rank is not None]
        assert ranks == sorted(ranks) and ranks[0] == 1


def test_a_smoke_run_on_the_h200_is_not_ranked_with_its_full_runs(board):
    smoke = SubmissionFactory(name="h200 smoke", target_chip=board.h200, status="complete")
    for key in ("a1", "a2", "a3"):
        evaluate(smoke, board.ops[key], board.h200, speedup=5.0, job__tier="smoke")
    services.refresh_leaderboard_entries(submission_id=smoke.pk)
    on_h200 = rows(chip="h200")
    assert row_of(on_h200, "h200 smoke").cohort_key[:2] == ("h200", "smoke")
    assert row_of(on_h200, "h200 smoke").rank == 1 and row_of(on_h200, "main run").rank == 1
    assert "h200 smoke" not in {r.name for r in rows(chip="h200", tier="full")}
    assert {r.name for r in rows(chip="h200", tier="smoke")} == {"h200 smoke"}


def test_a_row_with_verdicts_of_several_tiers_is_shown_without_a_rank(board):
    mixed = SubmissionFactory(name="mixed tiers", target_chip=board.h200, status="complete")
    evaluate(mixed, board.ops["a1"], board.h200, speedup=2.0, job__tier="smoke")
    for key in ("a2", "a3"):
        evaluate(mixed, board.ops[key], board.h200, speedup=2.0)
    services.refresh_leaderboard_entries(submission_id=mixed.pk)
    row = row_of(rows(), "mixed tiers")
    assert row.tier == "mixed" and row.rank is None
    assert row.unranked_reason == "its operators' verdicts come from several tiers"


def test_speedups_timed_under_another_protocol_form_their_own_cohort(board):
    other = SubmissionFactory(name="read flush", target_chip=board.h200, status="complete")
    for key in ("a1", "a2", "a3"):
        evaluate(other, board.ops[key], board.h200, speedup=2.0, environment={"l2_flush": "read"})
    services.refresh_leaderboard_entries(submission_id=other.pk)
    row = row_of(rows(chip="h200"), "read flush")
    assert row.timing_protocol == "read:events" and row.rank == 1
    assert row_of(rows(chip="h200"), "main run").rank == 1
    both = SubmissionFactory(name="two protocols", target_chip=board.h200, status="complete")
    evaluate(both, board.ops["a1"], board.h200, speedup=2.0, environment={"timing_clock": "kernel"})
    for key in ("a2", "a3"):
        evaluate(both, board.ops[key], board.h200, speedup=2.0)
    services.refresh_leaderboard_entries(submission_id=both.pk)
    row = row_of(rows(chip="h200"), "two protocols")
    assert row.timing_protocol == "mixed" and row.rank is None


def test_a_submission_still_evaluating_is_shown_but_not_ranked(board, evaluating):
    on_h200 = rows(chip="h200")
    half = row_of(on_h200, "half done")
    assert half.accuracy_pct == 100.0  # better than every complete row so far
    assert half.rank is None and half.unranked_reason == "still evaluating"
    assert row_of(on_h200, "main run").rank == 1
    ranked = [r for r in on_h200 if r.rank is not None]
    assert on_h200[: len(ranked)] == ranked  # the ranked rows first, then the others


def test_ties_share_a_rank(board):
    twin = SubmissionFactory(name="twin", target_chip=board.h200, status="complete")
    for key, verdict in (("a1", "correct"), ("a2", "correct"), ("a3", "incorrect"), ("v1", "correct")):
        evaluate(twin, board.ops[key], board.h200, verdict=verdict, speedup=1.0 if verdict == "correct" else None)
    evaluate(twin, board.ops["c1"], board.h200, verdict="compile_error")
    services.refresh_leaderboard_entries(submission_id=twin.pk)
    on_h200 = rows(chip="h200", demo="exclude")
    assert {(r.name, r.rank) for r in on_h200} == {("main run", 1), ("twin", 1)}  # both 60%


def test_sorting_by_a_figure_ranks_only_the_rows_that_have_it(board):
    on_h200 = rows(chip="h200", sort="speedup")
    assert row_of(on_h200, "main run").rank == 1
    assert row_of(on_h200, "[demo] run").unranked_reason == "no Speedup"


def test_the_default_view_opens_on_the_flagship_chip_and_says_so(board, cpu_smoke):
    view = selectors.leaderboard_view(filters=LeaderboardFilters(), chip_chosen=False)
    assert view.by_default and (view.filters.chip, view.filters.tier) == ("h200", "full")
    assert view.current.label == "NVIDIA H200 · full tier · timed write:events"
    assert {r.chip for r in view.rows} == {"h200"}
    # every other chip and tier is one link away, the flagship first
    assert [c.chip for c in view.cohorts] == ["h200", "mi300x", "cpu"]
    assert [(c.ranked_rows, c.verified_rows) for c in view.cohorts] == [(2, 1), (1, 1), (1, 1)]  # + the demo row
    explicit = selectors.leaderboard_view(filters=LeaderboardFilters(chip=""), chip_chosen=True)
    assert not explicit.by_default and explicit.current is None
    assert {r.chip for r in explicit.rows} == {"h200", "mi300x", "cpu"}


def test_the_default_view_skips_a_flagship_without_complete_rows(db):
    h200 = ChipFactory(slug="h200", name="NVIDIA H200", family="nvidia")
    mi300x = ChipFactory(slug="mi300x", name="AMD MI300X", vendor="AMD", family="amd")
    ops = [OperatorFactory(source="aten", name=f"op{i}") for i in range(3)]
    running = SubmissionFactory(name="running", target_chip=h200, status="evaluating")
    done = SubmissionFactory(name="done", target_chip=mi300x, status="complete")
    for op in ops:
        evaluate(running, op, h200, speedup=2.0)
        evaluate(done, op, mi300x, speedup=1.0)
    for submission in (running, done):
        services.refresh_leaderboard_entries(submission_id=submission.pk)
    view = selectors.leaderboard_view(filters=LeaderboardFilters(), chip_chosen=False)
    assert view.filters.chip == "mi300x" and [r.name for r in view.rows] == ["done"]


def test_the_preliminary_threshold_is_a_share_of_the_operator_set(settings):
    assert [
        metrics.preliminary_minimum(catalog_minimum=10, catalog_operators=210, set_operators=n) for n in (210, 110, 50)
    ] == [10, 6, 3]
    assert metrics.preliminary_minimum(catalog_minimum=10, catalog_operators=0, set_operators=0) == 10
    assert metrics.preliminary_minimum(catalog_minimum=10, catalog_operators=12, set_operators=1) == 1
    assert metrics.competition_ranks([5, 4, 4, 3]) == [1, 2, 2, 4]


@pytest.fixture
def per_source(db, settings):
    """25 operators (20 ATen, 5 vLLM) and the catalog-wide minimum of 10: a vLLM view needs ceil(10 * 5 / 25) = 2."""
    settings.KGB_PRELIMINARY_MIN_OPERATORS = 10
    h200 = ChipFactory(slug="h200", name="NVIDIA H200", family="nvidia")
    aten = [OperatorFactory(source="aten", name=f"a{i}") for i in range(20)]
    vllm = [OperatorFactory(source="vllm13", name=f"v{i}") for i in range(5)]
    wide = SubmissionFactory(name="wide", target_chip=h200, status="complete")
    for op in aten[:8] + vllm[:4]:
        evaluate(wide, op, h200, speedup=1.5)
    narrow = SubmissionFactory(name="narrow", target_chip=h200, status="complete")
    for op in aten[:2] + vllm[:1]:
        evaluate(narrow, op, h200, speedup=1.2)
    for submission in (wide, narrow):
        services.refresh_leaderboard_entries(submission_id=submission.pk)


def test_per_source_views_rank_rows_with_a_share_of_the_sources_operators(per_source):
    sizes = selectors.operator_set_sizes()
    assert sizes.operators == {"all": 25, "aten": 20, "vllm13": 5, "cublas": 0, "mc": 20}
    assert sizes.minimums == {"all": 10, "aten": 8, "vllm13": 2, "cublas": 10, "mc": 8}
    vllm = rows(source="vllm13")
    # 4 vLLM operators were below the fixed 10: every row of this view was preliminary, none ranked
    assert (row_of(vllm, "wide").operators_evaluated, row_of(vllm, "wide").rank) == (4, 1)
    assert row_of(vllm, "narrow").preliminary and row_of(vllm, "narrow").rank is None  # 1 of the 2 needed
    assert row_of(rows(source="aten"), "wide").rank == 1  # 8 of 20 ATen operators: enough
    assert row_of(rows(), "wide").rank == 1  # 12 of 25: enough
    view = selectors.leaderboard_view(filters=LeaderboardFilters(source="vllm13"), chip_chosen=False)
    assert (view.preliminary_minimum, view.set_operators) == (2, 5)


def test_multi_source_cells_use_each_sources_threshold(per_source):
    _columns, methods = selectors.multi_source(filters=LeaderboardFilters(chip="h200"))
    wide = next(m for m in methods if m.cells["all"].operators_evaluated == 12)
    assert not wide.cells["vllm13"].preliminary  # 4 of 5 vLLM operators, threshold 2


def test_the_default_columns_leave_the_rarely_read_ones_to_the_chooser():
    choice = selectors.leaderboard_columns(requested=[], one_chip=True)
    assert choice.hidden == {"chip", "compiled_pct", "mean_sol_pct", "pass1_pct", "pass5_pct", "samples"}
    assert not choice.explicit and choice.requested == []
    assert "chip" not in selectors.leaderboard_columns(requested=[], one_chip=False).hidden
    picked = selectors.leaderboard_columns(requested=["accuracy_pct,samples", "nope"], one_chip=True)
    assert picked.explicit and picked.requested == ["accuracy_pct", "samples"]
    assert "cols-explicit" in picked.table_classes and "hide-speedup" in picked.table_classes
    essential = [c.key for c in selectors.LEADERBOARD_COLUMNS if c.essential]
    assert essential == ["accuracy_pct", "speedup", "tokens_per_success"]


def test_api_rows_carry_their_cohort_and_rank(board, cpu_smoke, evaluating):
    from rest_framework.test import APIClient

    results = APIClient().get("/api/v1/leaderboard/").json()["results"]
    by_name = {(r["name"], r["chip"]): r for r in results}
    assert by_name[("cpu smoke", "cpu")]["rank"] == 1 and by_name[("main run", "h200")]["rank"] == 1
    assert by_name[("cpu smoke", "cpu")]["tier"] == "smoke"
    assert by_name[("cpu smoke", "cpu")]["timing_protocol"] == "untimed"
    assert by_name[("half done", "h200")]["rank"] is None
    assert by_name[("half done", "h200")]["unranked_reason"] == "still evaluating"
    assert {r["prompt_set"] for r in results} == {"kgb/1"}
    smoke = APIClient().get("/api/v1/leaderboard/", {"tier": "smoke"}).json()["results"]
    assert {r["name"] for r in smoke} == {"cpu smoke"}


def test_home_and_leaderboard_pages_say_which_rows_are_ranked_together(client, board, cpu_smoke, evaluating):
    for url in ("/", "/leaderboard/"):
        body = client.get(url).content.decode()
        assert "NVIDIA H200 · full tier · timed write:events" in body
        assert "default view" in body and "prompt set kgb/1" in body
        assert "cpu smoke" not in body  # another chip: one click away
        assert "chip=cpu&amp;tier=smoke" in body
        assert "not ranked: still evaluating" in body
    body = client.get("/leaderboard/?chip=cpu&tier=smoke").content.decode()
    assert "cpu smoke" in body and "default view" not in body
    assert "CPU · smoke tier · untimed (correctness only)" in body
