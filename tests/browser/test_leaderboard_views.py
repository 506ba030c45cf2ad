"""Issue 21 in Chromium: rankings never mix incomparable rows (item 1), the token and cost columns are in view at
1400 px with a column chooser and a sticky method column, and the key figures at 390 px (item 2), per-source views
rank their rows (item 7). No wait_for_function: the site's Content-Security-Policy refuses string evaluation."""

from __future__ import annotations

import re

import pytest

from evaluator.models import JobState
from leaderboard.selectors import LEADERBOARD_COLUMNS
from leaderboard.services import refresh_leaderboard_entries
from tests.factories import (
    ChipFactory,
    EvaluationJobFactory,
    LLMModelFactory,
    OperatorFactory,
    ScaffoldFactory,
    SubmissionFactory,
)
from tests.leaderboard.conftest import evaluate

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def boards(live_server):
    """H200 (full tier, timed): a complete run at 66.7% and a run still evaluating at 100% so far; the CPU
    interpreter (smoke tier, untimed): a complete run at 100%."""
    h200 = ChipFactory(slug="h200", name="NVIDIA H200", family="nvidia")
    cpu = ChipFactory(slug="cpu", name="CPU", vendor="any", family="cpu", device_type="cpu", timing_meaningful=False)
    ops = [OperatorFactory(source="aten", name=n) for n in ("add", "mul", "sin")]
    pending_op = OperatorFactory(source="vllm13", name="rms_norm")
    model = LLMModelFactory(provider="Anthropic", name="Claude Opus", version="4.6")
    scaffold = ScaffoldFactory(name="Claude Code", version="2.1")
    best = SubmissionFactory(name="complete best", model=model, scaffold=scaffold, target_chip=h200, status="complete")
    for op, speedup in zip(ops, (2.0, 1.5, None), strict=True):
        evaluate(best, op, h200, verdict="correct" if speedup else "incorrect", speedup=speedup)
    half = SubmissionFactory(name="half done", target_chip=h200, status="evaluating")
    for op in ops:
        evaluate(half, op, h200, speedup=3.0)
    EvaluationJobFactory(attempt__submission=half, attempt__operator=pending_op, state=JobState.QUEUED)
    smoke = SubmissionFactory(name="cpu smoke", target_chip=cpu, status="complete")
    for op in ops:
        evaluate(smoke, op, cpu, speedup=None, job__tier="smoke")
    for submission in (best, half, smoke):
        refresh_leaderboard_entries(submission_id=submission.pk)
    return live_server.url


def test_boards_rank_only_comparable_rows_and_open_on_the_flagship_chip(page, boards):
    for path in ("/", "/leaderboard/"):
        page.goto(boards + path)
        assert page.get_by_test_id("cohort-label").inner_text().startswith("NVIDIA H200 · full tier · timed")
        assert page.get_by_test_id("default-view").is_visible()  # the page says the site picked it
        table = page.locator("#leaderboard-table")
        assert "cpu smoke" not in table.inner_text()  # the CPU's smoke-tier 100% is not ranked with the H200
        first = table.locator("tbody tr").first
        assert first.get_attribute("data-rank") == "1" and "complete best" in first.inner_text()
        half = table.locator("tbody tr", has_text="half done")
        assert half.get_attribute("data-rank") == ""  # shown, not ranked, though its 100% is the highest
        assert "not ranked: still evaluating" in half.inner_text()
    # every other chip and tier is one click away
    page.get_by_role("link", name=re.compile(r"^CPU · smoke tier")).click()
    page.wait_for_url("**chip=cpu**")
    table = page.locator("#leaderboard-table")
    assert "complete best" not in table.inner_text()
    assert table.locator("tbody tr", has_text="cpu smoke").get_attribute("data-rank") == "1"
    assert page.get_by_test_id("cohort-label").inner_text().startswith("CPU · smoke tier · untimed")
    page.get_by_role("link", name="All chips").click()
    page.wait_for_url(re.compile(r"\?chip=$"))
    assert "cpu smoke" in table.inner_text() and "complete best" in table.inner_text()


def right_edge(locator) -> float:
    box = locator.bounding_box()
    assert box is not None, "not rendered"
    return box["x"] + box["width"]


def header(page, label: str):
    return page.locator("#leaderboard-table thead th").filter(has_text=re.compile(rf"^{re.escape(label)}$"))


def scroll_overflow(page) -> int:
    """How far the leaderboard's table reaches past its scrolling box (0: no horizontal scroll)."""
    return page.evaluate(
        "() => { const w = document.getElementById('leaderboard-table').closest('.table-wrap');"
        " return w.scrollWidth - w.clientWidth; }"
    )


def test_token_and_cost_columns_are_in_view_at_1400px_with_a_column_chooser(page, boards):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(boards + "/leaderboard/")
    for label in ("Tokens", "Tok/success", "$/success", "Wall"):
        assert header(page, label).is_visible(), label
        assert right_edge(header(page, label)) <= 1400, label
    assert scroll_overflow(page) <= 0
    compiled = header(page, "Compiled")
    assert not compiled.is_visible()  # one of the columns left to the chooser
    page.get_by_test_id("column-chooser").click()
    page.get_by_label("Compiled").check()
    assert compiled.is_visible()  # at once, without a reload
    assert "cols=compiled_pct" in page.url  # and kept in the URL
    page.get_by_label("Wall").uncheck()
    assert not header(page, "Wall").is_visible()
    page.reload()
    assert header(page, "Compiled").is_visible() and not header(page, "Wall").is_visible()
    page.get_by_role("link", name="Speedup").click()  # sorting keeps the chosen columns
    page.wait_for_url("**sort=-speedup**")
    assert "cols=compiled_pct" in page.url and header(page, "Compiled").is_visible()


def test_the_method_column_stays_in_view_when_the_table_scrolls(page, boards):
    page.set_viewport_size({"width": 1000, "height": 900})
    every = "&".join(f"cols={c.key}" for c in LEADERBOARD_COLUMNS)
    page.goto(f"{boards}/leaderboard/?chip=&cols=chip&{every}")
    assert scroll_overflow(page) > 200  # every column: wider than the screen
    method = page.locator("#leaderboard-table tbody tr", has_text="complete best").locator("td.method")
    samples = header(page, "Samples")
    before, samples_before = method.bounding_box()["x"], samples.bounding_box()["x"]
    page.evaluate("() => { document.getElementById('leaderboard-table').closest('.table-wrap').scrollLeft = 400; }")
    assert abs(method.bounding_box()["x"] - before) < 2  # sticky
    assert samples.bounding_box()["x"] < samples_before - 300  # the rest scrolled
    assert method.is_visible() and "complete best" in method.inner_text()


def test_a_phone_shows_the_rank_the_method_and_the_key_figures(page, boards):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(boards + "/leaderboard/")
    row = page.locator("#leaderboard-table tbody tr", has_text="complete best")
    for label in ("#", "Method", "Accuracy", "Speedup", "Tok/success"):
        assert header(page, label).is_visible(), label
        assert right_edge(header(page, label)) <= 390, label
    assert "66.7%" in row.locator("td.col-accuracy_pct").inner_text()
    assert right_edge(row.locator("td.col-tokens_per_success")) <= 390


@pytest.fixture
def per_source(live_server, settings):
    """25 operators (20 ATen, 5 vLLM), the catalog-wide preliminary minimum of 10: a run with 4 vLLM operators."""
    settings.KGB_PRELIMINARY_MIN_OPERATORS = 10
    h200 = ChipFactory(slug="h200", name="NVIDIA H200", family="nvidia")
    aten = [OperatorFactory(source="aten", name=f"a{i}") for i in range(20)]
    vllm = [OperatorFactory(source="vllm13", name=f"v{i}") for i in range(5)]
    run = SubmissionFactory(name="vllm run", target_chip=h200, status="complete")
    for op in aten[:8] + vllm[:4]:
        evaluate(run, op, h200, speedup=1.5)
    small = SubmissionFactory(name="one op", target_chip=h200, status="complete")
    evaluate(small, vllm[0], h200, speedup=1.1)
    for submission in (run, small):
        refresh_leaderboard_entries(submission_id=submission.pk)
    return live_server.url


def test_a_per_source_view_ranks_rows_with_a_share_of_its_operators(page, per_source):
    page.goto(per_source + "/leaderboard/?source=vllm13")
    table = page.locator("#leaderboard-table")
    run = table.locator("tbody tr", has_text="vllm run")
    assert run.get_attribute("data-rank") == "1"  # 4 of 5 vLLM operators: ranked (the fixed 10 made it preliminary)
    assert run.locator("td.rank").inner_text().strip() == "1"
    assert "preliminary" not in run.inner_text()
    small = table.locator("tbody tr", has_text="one op")
    assert small.get_attribute("data-rank") == "" and "preliminary" in small.inner_text()
    assert page.get_by_test_id("preliminary-minimum").inner_text() == "2"  # ceil(10 x 5 / 25)
