"""Issue 21 item 8 in Chromium: the Pareto front is drawn per chip, log axes label their ticks with magnitudes,
the heatmap's chip names are not clipped and its colour runs from pale (low accuracy) to dark (high)."""

from __future__ import annotations

import re

import pytest

from leaderboard.services import refresh_leaderboard_entries
from tests.factories import ChipFactory, OperatorFactory, SubmissionFactory
from tests.leaderboard.conftest import evaluate

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RENDERED = "element => element.dataset.rendered === '1'"


@pytest.fixture
def boards(live_server):
    h200 = ChipFactory(slug="h200", name="NVIDIA H200", family="nvidia")
    mtt = ChipFactory(slug="mtt", name="Moore Threads MTT S4000 with a long name", vendor="Moore Threads", family="musa")
    ops = [OperatorFactory(source="aten", name=n) for n in ("add", "mul", "sin")]
    for chip, verdicts, tokens in ((h200, ("correct", "correct", "incorrect"), 4000), (mtt, ("correct",) * 3, 90_000)):
        for name, share in (("lean", 1), ("costly", 8)):
            submission = SubmissionFactory(name=f"{name} {chip.slug}", target_chip=chip, status="complete")
            for op, verdict in zip(ops, verdicts, strict=True):
                evaluate(submission, op, chip, verdict=verdict, speedup=1.2, prompt_tokens=tokens * share)
            refresh_leaderboard_entries(submission_id=submission.pk)
    return live_server.url


def _wait_rendered(page, chart: str) -> None:
    locator = page.locator(f"[data-chart={chart}]")
    for _ in range(100):
        if locator.evaluate(RENDERED):
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"{chart} was not drawn")


def test_the_pareto_front_is_per_chip_and_log_ticks_carry_their_magnitude(page, boards):
    page.goto(boards + "/leaderboard/?chip=")
    _wait_rendered(page, "pareto-data")
    chart = page.locator("[data-chart=pareto-data]")
    fronts = chart.evaluate("el => el.data.filter(t => t.mode === 'lines').map(t => t.name)")
    assert sorted(fronts) == [
        "Pareto front · Moore Threads MTT S4000 with a long name · full tier",
        "Pareto front · NVIDIA H200 · full tier",
    ]
    labels = [t.strip() for t in chart.locator(".xtick text").all_text_contents()]
    assert labels and all(re.fullmatch(r"\d+(\.\d+)?[kMB]", label) for label in labels), labels


def test_the_heatmap_names_every_chip_in_full_and_darkens_with_accuracy(page, boards):
    page.goto(boards + "/leaderboard/multi-chip/")
    _wait_rendered(page, "heatmap-data")
    chart = page.locator("[data-chart=heatmap-data]")
    box = chart.bounding_box()
    ticks = chart.locator(".xtick text")
    assert "Moore Threads MTT S4000 with a long name" in ticks.all_text_contents()
    for index in range(ticks.count()):
        tick = ticks.nth(index).bounding_box()
        assert tick["y"] >= box["y"]  # inside the chart, not cut off at its top or sides
        assert box["x"] <= tick["x"] and tick["x"] + tick["width"] <= box["x"] + box["width"]
    scale = chart.evaluate("el => el.data[0].colorscale")
    luminance = [sum(int(c[i : i + 2], 16) for i in (1, 3, 5)) for _, c in (scale[0], scale[-1])]
    assert luminance[0] > luminance[1]  # 0% pale, 100% dark
