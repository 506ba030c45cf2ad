"""Issue 21 item 10 in Chromium: operator names read right (no underline through an underscore) and the operator
list can be searched and sorted, with its figures per chip (best speedup, correct submissions)."""

from __future__ import annotations

import pytest

from leaderboard.services import refresh_leaderboard_entries
from tests.factories import ChipFactory, OperatorFactory, SubmissionFactory
from tests.leaderboard.conftest import evaluate

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

UNDERLINE = "element => getComputedStyle(element).textDecorationLine"


@pytest.fixture
def operators(live_server):
    h200 = ChipFactory(slug="h200", name="NVIDIA H200", family="nvidia")
    softmax = OperatorFactory(source="aten", name="_softmax", category="reduction")
    add_ = OperatorFactory(source="aten", name="add_", category="pointwise")
    OperatorFactory(source="cublas", name="cublasSgemm_v2", category="blas3")
    first = SubmissionFactory(name="first", target_chip=h200, status="complete")
    second = SubmissionFactory(name="second", target_chip=h200, status="complete")
    private = SubmissionFactory(name="private", target_chip=h200, status="complete", is_public=False)
    evaluate(first, softmax, h200, speedup=1.5)
    evaluate(second, softmax, h200, speedup=2.5)
    evaluate(private, softmax, h200, speedup=9.0)  # not counted: nobody else may see it
    evaluate(first, add_, h200, speedup=0.8)
    evaluate(second, add_, h200, verdict="incorrect")
    for submission in (first, second, private):
        refresh_leaderboard_entries(submission_id=submission.pk)
    return live_server.url


def test_operator_names_are_not_underlined_through_their_underscores(page, operators):
    page.goto(operators + "/operators/")
    link = page.get_by_role("link", name="aten::_softmax")
    assert link.evaluate(UNDERLINE) == "none"
    link.hover()
    assert link.evaluate(UNDERLINE) == "underline"
    offset = link.evaluate("element => parseFloat(getComputedStyle(element).textUnderlineOffset)")
    size = link.evaluate("element => parseFloat(getComputedStyle(element.querySelector('code')).fontSize)")
    assert offset >= 0.3 * size  # the line runs below the underscore's descent


def test_the_operator_list_is_searched_sorted_and_shows_figures_per_chip(page, operators):
    page.goto(operators + "/operators/")
    table = page.locator("#operator-table")
    softmax = table.locator("tr[data-operator='aten::_softmax']")
    assert softmax.locator("td[data-chip=h200]").inner_text() == "2.50× · 2"
    assert table.locator("tr[data-operator='aten::add_'] td[data-chip=h200]").inner_text() == "0.80× · 1"
    assert table.locator("tr[data-operator='cublas::cublasSgemm_v2'] td[data-chip=h200]").inner_text() == "–"

    page.get_by_role("link", name="Best speedup").click()
    page.wait_for_url("**sort=best_speedup**")
    page.get_by_role("link", name="Best speedup").click()  # again: best first
    page.wait_for_url("**sort=-best_speedup**")
    order = table.locator("tbody tr").evaluate_all("rows => rows.map(row => row.dataset.operator)")
    assert order == ["aten::_softmax", "aten::add_", "cublas::cublasSgemm_v2"]

    page.fill("#id_q", "softmax")
    page.get_by_role("button", name="Apply").click()
    page.wait_for_url("**q=softmax**")
    assert "sort=-best_speedup" in page.url  # searching keeps the order
    assert table.locator("tbody tr").count() == 1
    assert page.goto(operators + "/operators/?sort=nonsense").status == 400
