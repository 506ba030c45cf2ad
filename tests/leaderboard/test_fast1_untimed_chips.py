"""fast_1 on a chip whose timings mean nothing (the cpu chip runs the Triton interpreter) is not measured: the pages
show "–" and the API and downloads null, where a timed chip shows a real percentage."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from leaderboard import selectors
from leaderboard.models import Submission
from leaderboard.selectors import LeaderboardFilters
from leaderboard.services import refresh_leaderboard_entries
from tests.factories import EvaluationFactory, SubmissionFactory
from tests.leaderboard.conftest import Board, evaluate

pytestmark = pytest.mark.django_db

FAST1_CELL = 3 + [c.key for c in selectors.LEADERBOARD_COLUMNS].index("fast1_pct")  # after rank, method and chip


@pytest.fixture
def both_chips(board: Board) -> Submission:
    """One submission evaluated on the cpu chip (no timings, as the evaluator stores them there) and on the H200,
    where 2 of its 3 correct operators are at least as fast as the baseline (fast_1 = 66.7%)."""
    submission = SubmissionFactory(name="both chips", target_chip=board.cpu, uploader=board.owner, status="complete")
    for key, h200_speedup in (("a1", 2.0), ("a2", 1.0), ("a3", 0.5)):
        on_cpu = evaluate(submission, board.ops[key], board.cpu, speedup=None)
        EvaluationFactory(job__attempt=on_cpu.attempt, job__chip=board.h200, speedup=h200_speedup)
    refresh_leaderboard_entries(submission_id=submission.pk)
    return submission


def fast1_cells(body: str, submission: Submission) -> dict[str, str]:
    """The fast_1 cell of the submission's table rows, by chip name."""
    cells = {}
    for row in re.findall(rf'<tr [^>]*data-submission="{submission.pk}">(.*?)</tr>', body, re.S):
        tds = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        cells[tds[2].strip()] = tds[FAST1_CELL].strip()
    return cells


def test_rows_carry_no_fast1_for_the_untimed_chip(both_chips):
    rows = selectors.submission_rows(submission_id=both_chips.pk)
    by_chip = {r.chip: r for r in rows}
    assert by_chip["cpu"].fast1_pct is None
    assert by_chip["cpu"].accuracy_pct == pytest.approx(100.0)  # correctness is still measured there
    assert by_chip["h200"].fast1_pct == pytest.approx(200 / 3)


@pytest.mark.parametrize("page", ["leaderboard", "submission_detail"])
def test_pages_show_a_dash_for_the_untimed_chip(client, both_chips, page):
    # the leaderboard with every chip (chip=): by default it shows one chip (the H200 here)
    url = reverse(page, args=[both_chips.pk]) if page == "submission_detail" else reverse(page) + "?chip="
    cells = fast1_cells(client.get(url).content.decode(), both_chips)
    assert cells == {"CPU": "–", "NVIDIA H200": "66.7%"}


def test_the_home_board_shows_the_timed_chip(client, both_chips):
    assert fast1_cells(client.get(reverse("home")).content.decode(), both_chips) == {"NVIDIA H200": "66.7%"}


def test_downloads_leave_fast1_empty_for_the_untimed_chip(client, both_chips):
    results = client.get("/leaderboard/", {"format": "json", "q": "both chips", "chip": ""}).json()["results"]
    assert {r["chip"]: r["fast1_pct"] for r in results} == {"cpu": None, "h200": pytest.approx(200 / 3)}
    text = client.get("/leaderboard/", {"format": "csv", "q": "both chips", "chip": ""}).content.decode()
    by_chip = {r["chip"]: r["fast1_pct"] for r in csv.DictReader(io.StringIO(text))}
    assert by_chip["cpu"] == ""
    assert float(by_chip["h200"]) == pytest.approx(200 / 3)


def test_api_gives_null_for_the_untimed_chip(both_chips):
    for chip, expected in (("cpu", None), ("h200", pytest.approx(200 / 3))):
        response = APIClient().get("/api/v1/leaderboard/", {"chip": chip, "q": "both chips"})
        assert response.status_code == 200
        assert [r["fast1_pct"] for r in response.json()["results"]] == [expected]


def test_the_untimed_chip_sorts_after_every_measured_fast1_even_ascending(both_chips):
    rows = selectors.leaderboard_rows(filters=LeaderboardFilters(sort="fast1_pct", desc=False, q="both chips"))
    assert [r.chip for r in rows] == ["h200", "cpu"]
