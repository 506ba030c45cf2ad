"""Leaderboard reads on a small board whose figures are worked out by hand (conftest.board)."""

from __future__ import annotations

import math

import pytest

from leaderboard import selectors, services
from leaderboard.models import LeaderboardEntry
from leaderboard.selectors import LeaderboardFilters
from tests.factories import SubmissionFactory, UserFactory
from tests.leaderboard.conftest import evaluate

pytestmark = pytest.mark.django_db


def rows(viewer=None, **filters):
    return selectors.leaderboard_rows(filters=LeaderboardFilters(**filters), viewer=viewer)


def row_of(result, name, chip=None):
    return next(r for r in result if r.name == name and (chip is None or r.chip == chip))


def test_main_row_figures(board):
    row = row_of(rows(), "main run")
    assert (row.operators_attempted, row.operators_evaluated) == (5, 5)
    assert row.accuracy_pct == pytest.approx(60.0)
    assert row.compiled_pct == pytest.approx(80.0)  # compile_error is the only one that did not compile
    assert row.fast1_pct == pytest.approx(40.0)  # 2.0x and 1.0x
    assert row.speedup == pytest.approx(1.0)  # geomean(2.0, 0.5, 1.0) over the correct operators only
    assert row.mean_sol_pct == pytest.approx(30.0)
    assert row.total_tokens == 5 * 1500
    assert row.tokens_per_success == pytest.approx(2500.0)
    assert row.cost_usd == pytest.approx((5000 * 3 + 2500 * 15) / 1e6)
    assert row.cost_per_success_usd == pytest.approx(row.cost_usd / 3)
    assert row.wall_time_h == pytest.approx(5 * 60 / 3600)
    assert row.pass1_pct is None  # one sample per operator: pass@k columns stay empty
    assert not row.preliminary and not row.is_demo


def test_source_filter_restricts_to_one_operator_set(board):
    aten = row_of(rows(source="aten", chip="h200"), "main run")
    assert aten.operators_evaluated == 3
    assert aten.accuracy_pct == pytest.approx(200 / 3)
    assert aten.speedup == pytest.approx(1.0)
    vllm = row_of(rows(source="vllm13"), "main run")
    assert (vllm.operators_evaluated, vllm.accuracy_pct, vllm.speedup) == (1, 100.0, 1.0)
    # the threshold scales with the view: 3 of the catalog's 5 operators for all sources, so 1 of its 1 vLLM one
    assert not vllm.preliminary and vllm.rank == 1


def test_chip_filter(board):
    assert {r.chip for r in rows(chip="mi300x")} == {"mi300x"}
    assert {r.name for r in rows(chip="mi300x")} == {"amd run"}


def test_private_rows_are_visible_to_their_owner_and_staff_only(board):
    assert "secret run" not in {r.name for r in rows()}
    assert "secret run" not in {r.name for r in rows(viewer=board.owner)}
    assert "secret run" in {r.name for r in rows(viewer=board.other)}
    assert "secret run" in {r.name for r in rows(viewer=UserFactory(username="staff", is_staff=True))}


def test_demo_filter(board):
    assert "[demo] run" in {r.name for r in rows()}
    assert "[demo] run" not in {r.name for r in rows(demo="exclude")}
    assert {r.name for r in rows(demo="only")} == {"[demo] run"}
    assert row_of(rows(), "[demo] run").is_demo


def test_sorting_and_preliminary_rows_rank_last(board):
    evaluate(
        SubmissionFactory(name="tiny", target_chip=board.h200, status="complete"),
        board.ops["a1"],
        board.h200,
        speedup=9.0,
    )
    services.rebuild_all_entries()
    on_h200 = rows(chip="h200", sort="speedup", desc=True)
    assert [(r.name, r.rank) for r in on_h200] == [("main run", 1), ("tiny", None), ("[demo] run", None)]
    tiny = row_of(on_h200, "tiny")  # the fastest, but preliminary (1 operator): after every ranked row
    assert tiny.unranked_reason == "preliminary: 1 of the 3 evaluated operators a rank needs"
    assert row_of(on_h200, "[demo] run").unranked_reason == "no Speedup"
    # 1.5x on the MI300X and 1.0x on the H200 are not compared: each is first on its own chip
    ranks = {(r.name, r.chip): r.rank for r in rows(sort="speedup", desc=True)}
    assert ranks[("amd run", "mi300x")] == ranks[("main run", "h200")] == 1
    ascending = [r for r in rows(chip="h200", sort="speedup", desc=False) if r.rank is not None]
    assert [r.name for r in ascending] == ["main run"]  # the demo row has no speedup: no rank by speedup
    assert "tiny" not in {r.name for r in rows(preliminary=False)}


def test_search_and_model_filters(board):
    assert {r.name for r in rows(q="amd")} == {"amd run"}
    assert {r.name for r in rows(model=board.main.model_id)} == {"main run", "amd run"}


def test_pass_at_k_with_several_samples(board):
    submission = SubmissionFactory(name="sampled", target_chip=board.h200, track="llm", status="complete")
    for sample, verdict in enumerate(["correct", "incorrect", "correct", "incorrect", "incorrect"]):
        evaluate(
            submission,
            board.ops["a1"],
            board.h200,
            verdict=verdict,
            speedup=1.0 if verdict == "correct" else None,
            sample_index=sample,
        )
    services.refresh_leaderboard_entries(submission_id=submission.pk)
    row = row_of(rows(), "sampled")
    assert row.samples == 5 and row.samples_per_operator == 5
    assert row.pass1_pct == pytest.approx(40.0)
    assert row.pass5_pct == pytest.approx(100.0)
    assert row.pass10_pct is None
    assert row.accuracy_pct == pytest.approx(100.0)


def test_full_tier_verdict_wins_over_smoke(board):
    submission = SubmissionFactory(name="tiers", target_chip=board.h200, status="complete")
    evaluation = evaluate(submission, board.ops["a1"], board.h200, verdict="correct", speedup=1.0, tier="smoke")
    from tests.factories import EvaluationFactory

    EvaluationFactory(
        job__attempt=evaluation.attempt,
        job__chip=board.h200,
        job__tier="full",
        verdict="incorrect",
        speedup=None,
        cases_passed=0,
    )
    services.refresh_leaderboard_entries(submission_id=submission.pk)
    assert row_of(rows(), "tiers").accuracy_pct == 0.0


def test_pareto_marks_the_undominated_rows(board):
    result = rows(chip="h200")
    main = row_of(result, "main run")
    assert main.pareto  # the only non-preliminary row on h200 with a correct operator
    assert not row_of(result, "[demo] run").pareto  # no success: no tokens per success


def test_multi_source_pivot(board):
    columns, method_rows = selectors.multi_source(filters=LeaderboardFilters(chip="h200"))
    assert columns == ["all", "aten", "vllm13", "cublas"]
    method = next(r for r in method_rows if r.model == board.main.model.name + " 1")
    assert method.cells["all"].accuracy_pct == pytest.approx(60.0)
    assert method.cells["aten"].accuracy_pct == pytest.approx(200 / 3)
    assert method.cells["vllm13"].speedup == pytest.approx(1.0)
    assert method.cells["cublas"].accuracy_pct == 0.0


def test_multi_chip_drop_against_nvidia(board):
    chips, reference, method_rows = selectors.multi_chip(filters=LeaderboardFilters())
    assert reference.slug == "h200"
    assert [c.slug for c in chips][0] == "h200"
    method = next(
        r for r in method_rows if "h200" in r.cells and "mi300x" in r.cells and r.scaffold.startswith("agent-a")
    )
    amd = method.cells["mi300x"]
    assert amd.accuracy_pct == pytest.approx(100 / 3)
    assert amd.accuracy_drop == pytest.approx(100 / 3 - 200 / 3)
    assert amd.speedup_ratio == pytest.approx(1.5 / 1.0)


def test_entries_are_idempotent_and_cover_every_set(board):
    before = list(LeaderboardEntry.objects.filter(submission=board.main).order_by("chip", "operator_set").values())
    services.refresh_leaderboard_entries(submission_id=board.main.pk)
    after = list(LeaderboardEntry.objects.filter(submission=board.main).order_by("chip", "operator_set").values())
    strip = [{k: v for k, v in e.items() if k not in ("id", "updated_at")} for e in before]
    assert strip == [{k: v for k, v in e.items() if k not in ("id", "updated_at")} for e in after]
    assert {e["operator_set"] for e in after} == {"all", "aten", "vllm13", "cublas", "mc"}
    by_set = {e["operator_set"]: e for e in after}
    for field in ("operators_evaluated", "operators_correct", "speedup_count", "prompt_tokens"):
        assert by_set["all"][field] == sum(by_set[s][field] for s in ("aten", "vllm13", "cublas"))
    mc = next(e for e in after if e["operator_set"] == "mc")
    assert math.exp(mc["speedup_log_sum"] / mc["speedup_count"]) == pytest.approx(1.0)


def test_submission_operator_table_and_progress(board):
    chips, table = selectors.submission_operator_table(submission=board.main)
    assert chips == ["h200"]
    verdicts = {r.operator_id: r.cells["h200"]["verdict"] for r in table}
    assert verdicts == {
        "aten::add": "correct",
        "aten::mul": "correct",
        "aten::sin": "incorrect",
        "vllm13::rms_norm": "correct",
        "cublas::cublasSaxpy_v2": "compile_error",
    }
    progress = selectors.submission_progress(submission=board.main)
    assert (progress["total"], progress["finished"], progress["percent"], progress["active"]) == (5, 5, 100, False)
    assert progress["verdicts"] == {"correct": 3, "incorrect": 1, "compile_error": 1}


def test_best_solutions_per_chip_hide_private_submissions(board):
    best = selectors.best_solutions(operator_id="aten::add")
    assert [s["speedup"] for s in best["h200"]] == [2.0]  # the private 3.0x is not shown to the public
    assert [s["speedup"] for s in selectors.best_solutions(operator_id="aten::add", viewer=board.other)["h200"]] == [
        3.0,
        2.0,
    ]
    assert [s["speedup"] for s in best["mi300x"]] == [1.5]


def test_speedup_distributions_of_the_top_rows(board):
    result = rows(chip="h200", demo="exclude")
    distributions = selectors.speedup_distributions(rows=result, source="all")
    assert [d["speedups"] for d in distributions] == [[0.5, 1.0, 2.0]]  # the demo row has no correct operator
